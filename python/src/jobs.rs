//! Demos, packets, `check` and the world simulation from Python: each the
//! JSON its command prints (`demo events --format jsonl`, `packet decode
//! --format json`, `check --format json`, `teehistorian simulate --format
//! json`), as Python values.

use crate::convert;
use crate::errors;
use crate::teehistorian::Input;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::path::PathBuf;
use std::sync::Arc;
use teeoracle::check::{Options, Source, Totals};
use teeoracle::packet::{TokenMode, Version};

/// The `teeoracle` command line (`argv`: the program's name first), run
/// as the binary runs it, without the GIL; `again` runs the same command
/// again (`record` runs itself in a network namespace). The exit code.
#[pyfunction]
pub fn cli(py: Python<'_>, argv: Vec<std::ffi::OsString>, again: Vec<std::ffi::OsString>) -> i32 {
    py.detach(|| teeoracle::cli::run_from(argv, Some(again)))
}

fn version_arg(v: &str) -> PyResult<Option<Version>> {
    match v {
        "0.6" => Ok(Some(Version::V06)),
        "0.7" => Ok(Some(Version::V07)),
        "auto" => Ok(None),
        _ => Err(PyValueError::new_err(format!(
            "version {v:?}: expected \"0.6\", \"0.7\" or \"auto\""
        ))),
    }
}

fn token_arg(t: &str) -> PyResult<TokenMode> {
    match t {
        "yes" => Ok(TokenMode::Present),
        "no" => Ok(TokenMode::Absent),
        "auto" => Ok(TokenMode::Auto),
        _ => Err(PyValueError::new_err(format!(
            "token {t:?}: expected \"yes\", \"no\" or \"auto\""
        ))),
    }
}

/// One datagram decoded: the entry of ``packet decode --format json``'s
/// ``packets`` for it (``verdict`` is what DDNet does with it).
#[pyfunction]
#[pyo3(signature = (data, version = "auto", token = "auto"))]
pub fn decode_packet<'py>(
    py: Python<'py>,
    data: &[u8],
    version: &str,
    token: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let version = version_arg(version)?;
    let token = token_arg(token)?;
    teeoracle::packet::json::decode_entry(data, version, token, |d| {
        convert::serialize(py, &d.entry)
    })
}

/// The datagrams a ``packet_decode`` document (or one of its entries, or
/// a list of them) describes, as JSON text.
#[pyfunction]
pub fn encode_packets<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyList>> {
    let datagrams = teeoracle::packet::spec::encode_str(json)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyList::new(py, datagrams.iter().map(|d| PyBytes::new(py, d)))
}

/// The ``check --format json`` document of ``paths``.
#[pyfunction]
#[pyo3(signature = (paths, maps = Vec::new(), deny_warnings = false, simulate = true, jobs = None))]
pub fn check<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    maps: Vec<PathBuf>,
    deny_warnings: bool,
    simulate: bool,
    jobs: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let (verdicts, roles) = py.detach(|| -> PyResult<_> {
        let mut files = Vec::new();
        for p in &paths {
            teeoracle::files::walk(p, true, &mut files).map_err(|e| errors::walk(&e))?;
        }
        let maps = match simulate {
            true => Some(Arc::new(maps_for(&files, &maps)?)),
            false => None,
        };
        let check_one = |(path, named): &(PathBuf, bool)| {
            let options = Options {
                deny_warnings,
                named: *named,
                max_decompressed: None,
                maps: maps.clone(),
            };
            teeoracle::check::check(Source::file(path), &options)
        };
        let schedule: Vec<usize> = (0..files.len()).collect();
        let mut verdicts = Vec::with_capacity(files.len());
        let no_state = || ();
        let checked = teeoracle::check::in_order(
            &files,
            &schedule,
            jobs,
            no_state,
            |(), file| check_one(file),
            |_, verdict| {
                verdicts.push(verdict);
                Ok::<_, std::convert::Infallible>(())
            },
        );
        let Ok(()) = checked;
        Ok((verdicts, teeoracle::diff::folder::roles_in_folders(&paths)))
    })?;
    let totals = Totals::of(&verdicts);
    let report = teeoracle::check::CheckDocument {
        files: &verdicts,
        totals: &totals,
        roles,
    };
    convert::serialize(py, &teeoracle::schema::Document::new("check", &report))
}

/// The maps teehistorian files may be simulated on, as `check` finds
/// them ([`teeoracle::simulation::Maps::for_walk`]).
fn maps_for(files: &[(PathBuf, bool)], dirs: &[PathBuf]) -> PyResult<teeoracle::simulation::Maps> {
    teeoracle::simulation::Maps::for_walk(files, dirs, false)
        .map_err(|e| PyOSError::new_err(format!("maps {e}")))
}

/// The collision of a map file, or of the map a demo embeds, and that
/// map's bytes.
fn collision(
    py: Python<'_>,
    map: &Bound<'_, PyAny>,
) -> PyResult<(
    teeoracle::simulation::physics::collision::Collision,
    String,
    Vec<u8>,
)> {
    use teeoracle::map::NoMap;
    use teeoracle::simulation::maps::MapFileError;
    let input = Input::of(map)?;
    let name = input.name.clone();
    let bytes = input.bytes()?;
    let col = teeoracle::simulation::collision_of_file(&bytes).map_err(|e| match e {
        MapFileError::NoMap(NoMap::Demo(e)) => errors::decode(py, &name, &e),
        e => PyValueError::new_err(format!("{name}: {e}")),
    })?;
    // It decoded, so its map is found.
    let map = match teeoracle::map::MapBytes::find(&bytes) {
        Ok(found) => found.of(&bytes).to_vec(),
        Err(_) => Vec::new(),
    };
    Ok((col, name, map))
}

/// Warns (``MapMismatchWarning``) when the map given is not the one the
/// teehistorian header names: its SHA-256 (or, in a header without one,
/// its CRC-32) differs. A header that names neither, or does not decode
/// (the simulation says why), is not compared.
fn compare_map(
    py: Python<'_>,
    name: &str,
    teehistorian: &[u8],
    map_name: &str,
    map: &[u8],
) -> PyResult<()> {
    use sha2::Digest;
    let Ok((header, _)) =
        teeoracle::teehistorian::StreamReader::new(teehistorian, teeoracle::codec::Mode::Lenient)
    else {
        return Ok(());
    };
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let info = &header.info;
    let (what, named, given) = match (&info.map_sha256, &info.map_crc) {
        (Some(sha), _) => (
            "SHA-256",
            sha.to_ascii_lowercase(),
            hex(&sha2::Sha256::digest(map)),
        ),
        (None, Some(crc)) => (
            "CRC-32",
            crc.to_ascii_lowercase(),
            format!("{:08x}", crc32fast::hash(map)),
        ),
        (None, None) => return Ok(()),
    };
    if named == given {
        return Ok(());
    }
    let map_in_header = info.map_name.as_deref().unwrap_or("?");
    errors::warn::<errors::MapMismatchWarning>(
        py,
        &format!(
            "{name}: its header names the map {map_in_header:?} of {what} {named}, but {map_name}'s map has {what} {given}: the positions will not match the recording"
        ),
        2,
    )
}

/// The ``teehistorian simulate --format json`` document.
#[pyfunction]
#[pyo3(signature = (teehistorian, map, demo = None, at = None, physics = None))]
pub fn simulate<'py>(
    py: Python<'py>,
    teehistorian: &Bound<'py, PyAny>,
    map: &Bound<'py, PyAny>,
    demo: Option<&Bound<'py, PyAny>>,
    at: Option<i32>,
    physics: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    use teeoracle::simulation::Release;
    use teeoracle::simulation::SimulateError;
    let physics = physics
        .map(str::parse::<Release>)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("physics {e}")))?;
    let (col, map_name, map_bytes) = collision(py, map)?;
    let input = Input::of(teehistorian)?;
    let name = input.name.clone();
    let bytes = input.bytes()?;
    compare_map(py, &name, &bytes, &map_name, &map_bytes)?;
    let demo_bytes = match demo {
        Some(d) => Some(Input::of(d)?.bytes()?),
        None => None,
    };
    let options = teeoracle::simulation::Options {
        demo: demo_bytes.as_deref(),
        until: at,
        physics,
    };
    let error = |e| match e {
        SimulateError::Decode(e) => errors::decode(py, &name, &e),
        SimulateError::UntilWithDemo => PyValueError::new_err("at and demo do not go together"),
        SimulateError::UntilOutside { until, ticks } => PyValueError::new_err(format!(
            "at={until}: the file's ticks are {}..{}",
            ticks.0, ticks.1
        )),
        e => PyValueError::new_err(format!("{name}: {e}")),
    };
    let report = py
        .detach(|| teeoracle::simulation::simulate(&bytes, col, &options))
        .map_err(&error)?;
    if let Some(at) = at {
        report.world_at(at).map_err(&error)?;
    }
    convert::serialize(py, &teeoracle::schema::Document::new("simulation", &report))
}

/// The format of `source` as `check` recognises it (by its bytes,
/// through any compression; by its name for formats without a magic).
pub fn detect(source: &mut Source) -> std::io::Result<Option<&'static str>> {
    use teeoracle::check::{claimed_by_name, formats};
    let head = source.head()?.to_vec();
    let claimed = claimed_by_name(source.name());
    Ok(formats()
        .iter()
        .copied()
        .filter(|f| f.has_magic())
        .chain(claimed.filter(|f| !f.has_magic()))
        .find(|f| f.sniff(&head))
        .map(|f| f.name()))
}

/// The format of the file at ``path`` as ``check`` recognises it, or
/// ``None``.
#[pyfunction]
pub fn format_of(path: PathBuf) -> PyResult<Option<&'static str>> {
    detect(&mut Source::file(&path)).map_err(|e| errors::io(&path, &e))
}
