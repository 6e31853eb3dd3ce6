//! Maps from Python: what `map info` and `map dump --format json` show,
//! and `open()`'s format detection.

use crate::convert;
use crate::errors;
use crate::teehistorian::Input;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use teeoracle::compression::default_max_decompressed;
use teeoracle::map::info::{Dump, Summary};
use teeoracle::map::{Datafile, MapBytes, NoMap};

/// A map file (``.map``), or the map a demo embeds, read whole.
///
/// ``info`` is the summary of ``teeoracle map info --format json``
/// (datafile version, sizes, item counts, info texts and settings, images,
/// envelopes, groups and their layers); ``datafile``, ``items`` (every
/// item, typed), ``blocks`` and ``layers`` (each tiles layer, its tiles
/// counted by kind) are those of ``teeoracle map dump --format json``.
/// ``embedded_at`` is the demo's byte where the map starts (``None`` for a
/// map file).
#[pyclass(frozen, module = "teeoracle._teeoracle")]
pub struct Map {
    name: String,
    embedded_at: Option<usize>,
    info: Py<PyAny>,
    datafile: Py<PyAny>,
    items: Py<PyAny>,
    blocks: Py<PyAny>,
    layers: Py<PyAny>,
}

#[pymethods]
impl Map {
    /// Opens ``source``: a path (``str`` or ``os.PathLike``) or the file's
    /// ``bytes``. Bytes that are not a map raise ``DecodeError``.
    #[new]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let input = Input::of(source)?;
        let name = input.name.clone();
        let bytes = input.bytes()?;
        let at = MapBytes::find(&bytes).map_err(|e| match e {
            NoMap::Demo(e) => errors::decode(py, &name, &e),
            e => PyValueError::new_err(format!("{name}: {e}")),
        })?;
        let map_bytes = at.of(&bytes);
        let datafile = Datafile::decode(map_bytes).map_err(|e| errors::decode(py, &name, &e))?;
        let map = teeoracle::map::Map::new(&datafile);
        let cap = default_max_decompressed(map_bytes.len() as u64);
        let summary = Summary::new(&datafile, &map, map_bytes.len() as u64, cap);
        let dump = Dump::new(&datafile, &map, cap, &|_| false);
        Ok(Map {
            name,
            embedded_at: at.embedded.then_some(at.range.start),
            info: convert::serialize(py, &summary)?.unbind(),
            datafile: convert::serialize(py, &dump.datafile)?.unbind(),
            items: convert::serialize(py, &dump.items)?.unbind(),
            blocks: convert::serialize(py, &dump.blocks)?.unbind(),
            layers: convert::serialize(py, &dump.tiles)?.unbind(),
        })
    }

    /// The file's name as given (``"<bytes>"`` for bytes).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The demo's byte where the embedded map starts; ``None`` for a map.
    #[getter]
    fn embedded_at(&self) -> Option<usize> {
        self.embedded_at
    }

    /// ``map info``'s summary.
    #[getter]
    fn info(&self, py: Python<'_>) -> Py<PyAny> {
        self.info.clone_ref(py)
    }

    /// The container's header fields.
    #[getter]
    fn datafile(&self, py: Python<'_>) -> Py<PyAny> {
        self.datafile.clone_ref(py)
    }

    /// Every item in file order, typed.
    #[getter]
    fn items(&self, py: Python<'_>) -> Py<PyAny> {
        self.items.clone_ref(py)
    }

    /// Every data block.
    #[getter]
    fn blocks(&self, py: Python<'_>) -> Py<PyAny> {
        self.blocks.clone_ref(py)
    }

    /// Every tiles layer, its tiles counted by kind.
    #[getter]
    fn layers(&self, py: Python<'_>) -> Py<PyAny> {
        self.layers.clone_ref(py)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Nothing to close: the map was read whole.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        false
    }

    fn __repr__(&self) -> String {
        format!("<Map {:?}>", self.name)
    }
}
