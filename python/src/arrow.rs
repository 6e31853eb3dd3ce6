//! The export's tables as Arrow streams (the Arrow PyCapsule interface,
//! `__arrow_c_stream__`), and `export()` into Parquet files.
//!
//! A [`Table`] is one table of the export (`teeoracle export`'s columns,
//! [`teeoracle::export::TABLES`]) over a list of files. Each time a
//! consumer asks for its stream, a worker thread runs an [`Exporter`] over
//! the files with a sink that passes that table's record batches (its
//! Parquet file's row groups) through a bounded channel: the files are
//! decoded as the consumer pulls, without the GIL, memory bounded by a few
//! row groups, and a consumer that stops (drops the stream) stops the
//! worker at its next batch.

use crate::errors;
use crate::jobs;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, Schema, SchemaRef};
use pyo3::exceptions::{PyImportError, PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};
use teeoracle::check::{Options, Source, Verdict};
use teeoracle::export::table::{self, Column};
use teeoracle::export::{Exporter, SCHEMA_VERSION, TABLES};
use teeoracle::simulation::Maps;

/// Record batches a stream may hold ahead of its consumer.
const AHEAD: usize = 2;

/// The files an export reads, as `check` and `export` find them.
pub struct Files {
    /// Each file, and whether it was named (not found in a folder).
    files: Vec<(PathBuf, bool)>,
    /// The maps teehistorian files are simulated on (`None`: no simulation).
    maps: Option<Arc<Maps>>,
}

impl Files {
    /// The files under `paths` (walked as `check` walks them), with the
    /// maps under `maps` and beside them when `simulate`.
    pub fn walk(paths: &[PathBuf], maps: &[PathBuf], simulate: bool) -> PyResult<Files> {
        let mut files = Vec::new();
        for p in paths {
            teeoracle::files::walk(p, true, &mut files).map_err(|e| errors::walk(&e))?;
        }
        let maps = match simulate {
            true => Some(Arc::new(
                Maps::for_walk(&files, maps, false)
                    .map_err(|e| PyOSError::new_err(format!("maps {e}")))?,
            )),
            false => None,
        };
        Ok(Files { files, maps })
    }

    /// One file, not simulated (a reader's own file).
    pub fn one(path: PathBuf) -> Files {
        Files {
            files: vec![(path, true)],
            maps: None,
        }
    }

    /// Checks each file and adds it to `exporter`, as `teeoracle export`
    /// does; gives the rows each table got, in [`TABLES`] order. With
    /// `only` a table other than `check_reports`, a file is not checked:
    /// the rows of the other tables need only its format, which is
    /// recognised as the check does it.
    fn export(&self, exporter: &mut Exporter, only: Option<&str>) -> io::Result<Vec<u64>> {
        let mut total = vec![0; TABLES.len()];
        for (path, named) in &self.files {
            let verdict = match only.is_some_and(|t| t != "check_reports") {
                true => {
                    let mut source = Source::file(path);
                    let mut verdict = Verdict::new(source.name());
                    // A file that cannot be read has no rows.
                    verdict.format = jobs::detect(&mut source).unwrap_or(None);
                    verdict
                }
                false => {
                    let options = Options {
                        named: *named,
                        maps: self.maps.clone(),
                        ..Options::default()
                    };
                    teeoracle::check::check(Source::file(path), &options)
                }
            };
            let rows = exporter.add(path, &verdict)?;
            for (t, n) in total.iter_mut().zip(rows) {
                *t += n;
            }
        }
        Ok(total)
    }
}

/// The Arrow schema of a table: its Parquet file's columns and footer
/// metadata (`teeoracle.table`, `teeoracle.schema_version`).
fn schema_of(name: &str, columns: &[Column]) -> SchemaRef {
    let metadata: HashMap<String, String> =
        table::metadata(name, SCHEMA_VERSION).into_iter().collect();
    Arc::new(table::schema(columns).with_metadata(metadata))
}

/// One table of the export of some files, as an Arrow stream.
///
/// ``__arrow_c_stream__`` (the Arrow PyCapsule interface) hands its record
/// batches to ``pyarrow``, ``polars``, ``pandas``, ``duckdb``, ... without
/// a file: the columns of ``teeoracle export``'s Parquet file of the same
/// name (``schema``), the same rows. Each stream reads the files anew, as
/// its consumer pulls. ``to_arrow()``, ``to_pandas()`` and ``to_polars()``
/// read it whole into that library's table.
#[pyclass(frozen, module = "teeoracle._teeoracle")]
pub struct Table {
    name: &'static str,
    columns: &'static [Column],
    files: Arc<Files>,
}

impl Table {
    /// The table `name` of the export of `files`.
    pub fn new(name: &str, files: Arc<Files>) -> PyResult<Table> {
        let Some(&(name, columns)) = TABLES.iter().find(|(n, _)| *n == name) else {
            return Err(PyKeyError::new_err(name.to_owned()));
        };
        Ok(Table {
            name,
            columns,
            files,
        })
    }

    /// The stream of record batches, its worker started.
    fn stream(&self) -> Stream {
        let schema = schema_of(self.name, self.columns);
        let (tx, rx) = sync_channel::<io::Result<RecordBatch>>(AHEAD);
        let files = self.files.clone();
        let want = self.name;
        let batches = tx.clone();
        let sink: table::Sink = Arc::new(move |name, batch| match name == want {
            true => batches
                .send(Ok(batch))
                .map_err(|_| io::Error::other("the stream's reader went away")),
            false => Ok(()),
        });
        std::thread::spawn(move || {
            let mut exporter = Exporter::to_sink(sink);
            if let Err(e) = files.export(&mut exporter, Some(want)) {
                // Nobody to tell when the reader has gone.
                let _ = tx.send(Err(e));
            }
        });
        Stream { schema, rx }
    }
}

/// The consumer's end of a stream: batches as the worker finishes them.
struct Stream {
    schema: SchemaRef,
    rx: Receiver<io::Result<RecordBatch>>,
}

impl Iterator for Stream {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // The worker has ended (every file read) once the channel closes.
        let batch = self.rx.recv().ok()?;
        Some(
            batch
                .map_err(|e| ArrowError::ExternalError(Box::new(e)))
                .and_then(|b| b.with_schema(self.schema.clone())),
        )
    }
}

impl RecordBatchReader for Stream {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// The capsule of an Arrow C stream of `table` (the PyCapsule interface).
pub fn stream_capsule<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyCapsule>> {
    let stream = FFI_ArrowArrayStream::new(Box::new(table.stream()));
    PyCapsule::new(py, stream, Some(c"arrow_array_stream".to_owned()))
}

/// The capsule of an Arrow C schema.
fn schema_capsule<'py>(py: Python<'py>, schema: &Schema) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi =
        FFI_ArrowSchema::try_from(schema).map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyCapsule::new(py, ffi, Some(c"arrow_schema".to_owned()))
}

/// `module`, or an ImportError saying that `what` needs it.
fn import<'py>(py: Python<'py>, module: &str, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import(module)
        .map_err(|e| match e.is_instance_of::<PyImportError>(py) {
            true => PyImportError::new_err(format!(
                "{what} needs the {module} package (pip install {module}): {e}"
            )),
            false => e,
        })
}

/// A `pyarrow.Table` of an object with `__arrow_c_stream__`.
pub fn to_arrow<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    import(obj.py(), "pyarrow", "to_arrow()")?.call_method1("table", (obj,))
}

/// A `pandas.DataFrame` of an object with `__arrow_c_stream__`.
pub fn to_pandas<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    import(obj.py(), "pandas", "to_pandas()")?;
    import(obj.py(), "pyarrow", "to_pandas()")?;
    to_arrow(obj)?.call_method0("to_pandas")
}

/// A `polars.DataFrame` of an object with `__arrow_c_stream__`.
pub fn to_polars<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    import(obj.py(), "polars", "to_polars()")?.call_method1("DataFrame", (obj,))
}

#[pymethods]
impl Table {
    /// The table's name (``teeoracle export``'s file ``NAME.parquet``).
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The Arrow C stream of the table's record batches (a PyCapsule);
    /// ``requested_schema`` is not used: the batches have the table's
    /// schema.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        stream_capsule(py, self)
    }

    /// The Arrow C schema of the table (a PyCapsule).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &schema_of(self.name, self.columns))
    }

    /// The table read whole as a ``pyarrow.Table`` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        to_arrow(slf.as_any())
    }

    /// The table read whole as a ``pandas.DataFrame`` (needs pandas and
    /// pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        to_pandas(slf.as_any())
    }

    /// The table read whole as a ``polars.DataFrame`` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        to_polars(slf.as_any())
    }

    fn __repr__(&self) -> String {
        format!(
            "<teeoracle.Table {} of {} file(s)>",
            self.name,
            self.files.files.len()
        )
    }
}

/// Every table of the export of ``paths``, by name (see ``Table``).
#[pyfunction]
#[pyo3(signature = (paths, maps = Vec::new(), simulate = true))]
pub fn tables<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    maps: Vec<PathBuf>,
    simulate: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let files = Arc::new(py.detach(|| Files::walk(&paths, &maps, simulate))?);
    let out = PyDict::new(py);
    for (name, _) in TABLES {
        out.set_item(name, Table::new(name, files.clone())?)?;
    }
    Ok(out)
}

/// ``teeoracle export``: every table of ``paths`` written to ``to`` as
/// ``NAME.parquet``; gives ``{table: (path, rows)}``.
#[pyfunction]
#[pyo3(signature = (paths, to, maps = Vec::new(), simulate = true))]
pub fn export<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    to: PathBuf,
    maps: Vec<PathBuf>,
    simulate: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let written = py.detach(|| -> PyResult<Vec<(PathBuf, u64)>> {
        let files = Files::walk(&paths, &maps, simulate)?;
        if to.exists() && !to.is_dir() {
            return Err(PyValueError::new_err(format!(
                "to={}: not a folder",
                to.display()
            )));
        }
        std::fs::create_dir_all(&to).map_err(|e| errors::io(&to, &e))?;
        let mut exporter = Exporter::create(&to).map_err(|e| errors::io(&to, &e))?;
        files
            .export(&mut exporter, None)
            .map_err(|e| errors::io(&to, &e))?;
        exporter.finish().map_err(|e| errors::io(&to, &e))
    })?;
    let out = PyDict::new(py);
    for ((name, _), (path, rows)) in TABLES.iter().zip(written) {
        out.set_item(name, (path.display().to_string(), rows))?;
    }
    Ok(out)
}

/// The table `name` of one reader's file, or a ValueError for a file given
/// as bytes (the stream reads the file anew, from its path).
pub fn of_file(name: &str, path: &std::path::Path, bytes: bool) -> PyResult<Table> {
    if bytes {
        return Err(PyValueError::new_err(
            "an Arrow stream reads the file anew: open it by its path, not as bytes",
        ));
    }
    Table::new(name, Arc::new(Files::one(path.to_path_buf())))
}
