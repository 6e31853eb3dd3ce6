//! Maps to simulate on: found by the SHA-256 a teehistorian header names
//! (`map_sha256`), among map files and the maps demos embed.

use super::SimulateError;
use super::physics::collision::{Collision, MapError};
use crate::files::WalkError;
use crate::map::{MapBytes, NoMap};
use crate::teehistorian::Header;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Maps by the SHA-256 of their bytes, and the demos named on the
/// command line or found under `--maps` by the map each embeds.
#[derive(Clone, Debug, Default)]
pub struct Maps {
    by_sha: BTreeMap<[u8; 32], Vec<u8>>,
    demos: BTreeMap<[u8; 32], Vec<PathBuf>>,
}

/// The bytes of the map or demo file at `path` (read through its
/// compression, up to the default cap for its size), if it is one by its
/// name and can be read. A pipe named like a map is not opened
/// ([`crate::files::special`]).
fn read_map_or_demo(path: &Path) -> Option<Vec<u8>> {
    let named = crate::files::named_as(path, "map") || crate::files::named_as(path, "demo");
    if !named || crate::files::special(path).is_some() {
        return None;
    }
    crate::input::Source::file(path).into_bytes().ok()
}

/// The map of a map file's bytes or of a demo (whether a demo's), and its
/// SHA-256; `None` for anything else.
fn map_of(bytes: &[u8]) -> Option<(&[u8], bool, [u8; 32])> {
    use sha2::{Digest, Sha256};
    let found = MapBytes::find(bytes).ok()?;
    let map = found.of(bytes);
    if !found.embedded && !crate::map::is_map(map) {
        return None;
    }
    Some((map, found.embedded, Sha256::digest(map).into()))
}

impl Maps {
    /// Adds a map file's bytes, or the map a demo embeds; anything else
    /// is not a map and is left out (false).
    pub fn add(&mut self, bytes: &[u8]) -> bool {
        let Some((map, _, sha)) = map_of(bytes) else {
            return false;
        };
        self.by_sha.entry(sha).or_insert_with(|| map.to_vec());
        true
    }

    /// Takes the demo at `path` (its bytes `bytes`), named on the command
    /// line or found under `--maps`, as one that may be of the session of
    /// a teehistorian file elsewhere on the map it embeds: that file
    /// compares with it if it is of its session, else names it with why
    /// not ([`super::check::OnMaps`]). Anything but a demo is left out.
    pub fn name_demo(&mut self, path: &Path, bytes: &[u8]) {
        if let Some((_, true, sha)) = map_of(bytes) {
            let demos = self.demos.entry(sha).or_default();
            if !demos.iter().any(|d| d == path) {
                demos.push(path.to_path_buf());
            }
        }
    }

    /// The demos named on the command line or found under `--maps`
    /// ([`Maps::name_demo`]) that embed the map whose SHA-256 is `sha256`
    /// (hex, as a header writes it), in the order found.
    pub fn demos_of(&self, sha256: &str) -> &[PathBuf] {
        let mut sha = [0u8; 32];
        if hex::decode_to_slice(sha256, &mut sha).is_err() {
            return &[];
        }
        self.demos.get(&sha).map_or(&[], Vec::as_slice)
    }

    /// How many maps.
    pub fn len(&self) -> usize {
        self.by_sha.len()
    }

    /// No maps.
    pub fn is_empty(&self) -> bool {
        self.by_sha.is_empty()
    }

    /// [`Maps::gather`] of the files a walk found (each with whether it
    /// was named, as [`crate::files::walk`] gives them), each demo named
    /// also offered to the teehistorian files of its map
    /// ([`Maps::name_demo`]): the maps of `check`, from the command line
    /// or from Python alike. `walked` (`check --walked`, a job handed one
    /// file of a folder with the folder as `--maps`): the demos under
    /// `dirs` are maps only, as in the walk of the folder, where a demo
    /// elsewhere pairs with no teehistorian file.
    pub fn for_walk(
        files: &[(PathBuf, bool)],
        dirs: &[PathBuf],
        walked: bool,
    ) -> Result<Maps, WalkError> {
        let paths: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
        let mut maps = Maps::gather(&paths, dirs)?;
        if walked {
            maps.demos.clear();
        }
        for (path, named) in files {
            if *named
                && crate::files::named_as(path, "demo")
                && let Some(bytes) = read_map_or_demo(path)
            {
                maps.name_demo(path, &bytes);
            }
        }
        Ok(maps)
    }

    /// The maps `check` simulates teehistorian files on: every map and
    /// demo (compressed or not) among `files`, under each of `dirs`, and
    /// beside each teehistorian file among `files` (in path order; a file
    /// that cannot be read is left out); the demos under `dirs` are also
    /// offered to the teehistorian files of their maps
    /// ([`Maps::name_demo`]). The error names a folder of `dirs` that
    /// cannot be walked.
    pub fn gather(files: &[PathBuf], dirs: &[PathBuf]) -> Result<Maps, WalkError> {
        let mut folders: Vec<PathBuf> = files
            .iter()
            .filter(|p| crate::files::named_as(p, "teehistorian"))
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        folders.sort();
        folders.dedup();
        let mut under = std::collections::BTreeSet::new();
        for d in dirs {
            under.extend(crate::files::files_under(d)?);
        }
        let mut candidates: Vec<PathBuf> = files.to_vec();
        candidates.extend(under.iter().cloned());
        for f in &folders {
            let dir = match f.as_os_str().is_empty() {
                true => Path::new("."),
                false => f.as_path(),
            };
            if let Ok(entries) = std::fs::read_dir(dir) {
                candidates.extend(entries.flatten().map(|e| e.path()));
            }
        }
        candidates.sort();
        candidates.dedup();
        let mut maps = Maps::default();
        for c in candidates {
            if let Some(bytes) = read_map_or_demo(&c) {
                maps.add(&bytes);
                if under.contains(&c) {
                    maps.name_demo(&c, &bytes);
                }
            }
        }
        Ok(maps)
    }

    /// The map whose SHA-256 is `sha256` (hex, as a header writes it).
    pub fn get(&self, sha256: &str) -> Option<&[u8]> {
        let mut sha = [0u8; 32];
        hex::decode_to_slice(sha256, &mut sha).ok()?;
        self.by_sha.get(&sha).map(Vec::as_slice)
    }

    /// The collision of the map `header` names, if it is among these
    /// (`None`: it is not), its blocks inflated up to `cap` bytes.
    pub fn collision_for(
        &self,
        header: &Header,
        cap: u64,
    ) -> Result<Option<Collision>, SimulateError> {
        let sha = header
            .info
            .map_sha256
            .as_deref()
            .ok_or(SimulateError::NoMapNamed)?;
        let Some(map) = self.get(sha) else {
            return Ok(None);
        };
        Collision::of_map_bytes(map, cap)
            .map(Some)
            .map_err(SimulateError::Map)
    }
}

impl Maps {
    /// Simulates the teehistorian file `bytes` on its map, if it is among
    /// these (`None`: it is not), with `options`.
    pub fn simulate(
        &self,
        bytes: &[u8],
        cap: u64,
        options: &super::Options,
    ) -> Result<Option<super::Report>, SimulateError> {
        let (header, _) = crate::teehistorian::SliceReader::new(bytes, crate::codec::Mode::Lenient)
            .map_err(SimulateError::Decode)?;
        match self.collision_for(&header, cap)? {
            Some(col) => super::simulate(bytes, col, options).map(Some),
            None => Ok(None),
        }
    }
}

/// What looking for a teehistorian file's map found.
#[derive(Clone, Debug)]
pub enum Lookup {
    /// The map's collision.
    Found(Box<Collision>),
    /// The map is not among those found (how many there were).
    NotAmong {
        /// The maps found.
        maps: usize,
    },
}

/// Why looking for a teehistorian file's map failed.
#[derive(Debug)]
pub enum LookupError {
    /// A folder to look in cannot be walked.
    Walk(WalkError),
    /// The file's header, or the map it names, cannot be simulated.
    Simulate(SimulateError),
}

impl std::fmt::Display for LookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LookupError::Walk(e) => write!(f, "{e}"),
            LookupError::Simulate(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LookupError {}

/// The collision of the map the teehistorian file at `path` (its bytes
/// `bytes`) names, among the maps and demos beside it and under `dirs`
/// ([`Maps::gather`]).
pub fn lookup(path: &Path, bytes: &[u8], dirs: &[PathBuf]) -> Result<Lookup, LookupError> {
    let maps = Maps::gather(&[path.to_path_buf()], dirs).map_err(LookupError::Walk)?;
    let (header, _) = crate::teehistorian::SliceReader::new(bytes, crate::codec::Mode::Lenient)
        .map_err(|e| LookupError::Simulate(SimulateError::Decode(e)))?;
    let cap = crate::compression::default_max_decompressed(bytes.len() as u64);
    Ok(
        match maps
            .collision_for(&header, cap)
            .map_err(LookupError::Simulate)?
        {
            Some(col) => Lookup::Found(Box::new(col)),
            None => Lookup::NotAmong { maps: maps.len() },
        },
    )
}

/// Why a file given as a map gives no collision.
#[derive(Clone, Debug, PartialEq)]
pub enum MapFileError {
    /// A demo without a map to take.
    NoMap(NoMap),
    /// The map (at `start` of the file, a demo's when `embedded`) gives no
    /// world.
    Map {
        /// Where the map starts in the file.
        start: usize,
        /// It is a demo's.
        embedded: bool,
        /// Why.
        error: MapError,
    },
}

impl std::fmt::Display for MapFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapFileError::NoMap(e) => write!(f, "{e}"),
            // The offset of a decode error is the map's own.
            MapFileError::Map {
                start,
                embedded: true,
                error: MapError::Decode(e),
            } => write!(f, "in the map the demo embeds at byte {start}: {e}"),
            MapFileError::Map { error, .. } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for MapFileError {}

/// The collision of a file given as a map: a map file, or the map a demo
/// embeds (its blocks inflated up to the default cap for its size).
pub fn collision_of_file(file: &[u8]) -> Result<Collision, MapFileError> {
    let found = MapBytes::find(file).map_err(MapFileError::NoMap)?;
    let map = found.of(file);
    let cap = crate::compression::default_max_decompressed(map.len() as u64);
    Collision::of_map_bytes(map, cap).map_err(|error| MapFileError::Map {
        start: found.range.start,
        embedded: found.embedded,
        error,
    })
}
