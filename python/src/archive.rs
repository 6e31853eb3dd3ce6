//! Recording archives from Python: what `archive info`, `log`, `seek` and
//! `verify` print, each map's recording as a `Teehistorian` streamed from
//! the archive, and the maps as an Arrow table.
//!
//! The crate's [`teeoracle::archive::Archive`] is shared with worker
//! threads: every operation that reads the archive runs on one, the GIL
//! released, while the caller's thread looks at signals between short
//! waits (Ctrl-C raises at once; the worker finishes its read on its own
//! and its result is dropped).

use crate::arrow;
use crate::convert;
use crate::errors;
use crate::teehistorian::Teehistorian;
use arrow_array::builder::{
    Float64Builder, Int32Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchIterator};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyList, PyTuple};
use serde::Serialize;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use teeoracle::archive::log::LogEvent;
use teeoracle::archive::{self as lib, ArchiveError, MapLine, NotArchive, TarFault};
use teeoracle::compression::Compression;
use teeoracle::schema::Document;

/// How often a caller waiting for a worker looks at signals.
const POLL: Duration = Duration::from_millis(50);

/// Runs `f` on a worker thread without the GIL; the caller looks at
/// signals every [`POLL`] (Ctrl-C raises `KeyboardInterrupt` at once).
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = sync_channel(1);
    std::thread::spawn(move || {
        // Nobody to tell when the caller has gone (interrupted).
        let _ = tx.send(f());
    });
    let mut rx = rx;
    loop {
        // The receiver goes to the GIL-free side and back (it is not Sync).
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(POLL);
            (rx, got)
        });
        rx = back;
        match got {
            Ok(t) => return Ok(t),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the archive's worker stopped"));
            }
        }
    }
}

/// The open archive, shared with the workers.
type Shared = Arc<Mutex<lib::Archive>>;

/// Runs `f` on the archive on a worker thread ([`interruptible`]); its
/// error raised as [`error`] says.
fn with_archive<T: Send + 'static>(
    py: Python<'_>,
    shared: &Shared,
    f: impl FnOnce(&mut lib::Archive) -> Result<T, ArchiveError> + Send + 'static,
) -> PyResult<T> {
    let shared = shared.clone();
    interruptible(py, move || {
        let mut a = shared.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut a)
    })?
    .map_err(|e| error(py, &e))
}

/// An archive error as the package raises it: `OSError` for a file that
/// cannot be read, `ValueError` naming the argument for a request the
/// archive cannot answer, `DecodeError` for a bad archive (code
/// `archive`, as `check` names it; `decode` for a recording that does
/// not decode, with its byte).
fn error(py: Python<'_>, e: &ArchiveError) -> PyErr {
    let message = e.to_string();
    match e {
        ArchiveError::Io { path, error } => errors::io(path, error),
        ArchiveError::NoSuchMap { map, .. } => {
            PyValueError::new_err(format!("map={map}: {message}"))
        }
        ArchiveError::TickBeforeStart { tick } | ArchiveError::TickAfterEnd { tick, .. } => {
            PyValueError::new_err(format!("at={tick}: {message}"))
        }
        _ if e.is_request() => PyValueError::new_err(message),
        ArchiveError::Recording {
            path,
            member,
            error,
        } => {
            let name = match member {
                Some(m) => format!("{}: {m}", path.display()),
                None => path.display().to_string(),
            };
            errors::decode(py, &name, error)
        }
        ArchiveError::NotAnArchive { path, why } => {
            let offset = match why {
                NotArchive::UnknownStart => Some(0),
                // A tar stream's byte is the file's when it is plain.
                NotArchive::Tar(TarFault::BadHeader { at }) if plain(path) => Some(*at),
                _ => None,
            };
            errors::raise(py, message, "archive", offset, None, None, None)
        }
        _ => errors::raise(py, message, "archive", None, None, None, None),
    }
}

/// Whether the file at `path` is not compressed.
fn plain(path: &Path) -> bool {
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(path)
        .and_then(|f| f.take(512).read_to_end(&mut head))
        .is_ok_and(|_| Compression::detect(&head) == Compression::None)
}

/// A map number argument: a `ValueError` naming it when it cannot be one.
fn map_arg(map: i64) -> PyResult<u32> {
    u32::try_from(map)
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| PyValueError::new_err(format!("map={map}: map folders count from 1")))
}

/// Map `n`'s recording as a `Teehistorian` streamed from the archive.
fn recording(py: Python<'_>, name: &str, shared: &Shared, n: u32) -> PyResult<Teehistorian> {
    let reader = with_archive(py, shared, move |a| a.recording_reader(n))?;
    let reader = Box::new(BufReader::with_capacity(1 << 16, reader));
    Teehistorian::of_stream(py, format!("{name}: {n}/demodata.bin"), reader)
}

/// A recording archive of ``teeoracle archive pack`` (a TAR file, plain or
/// compressed with bzip2, gzip, xz or zstd), read in place.
///
/// ``info`` is its top-level ``info.txt`` (``version``, ``name``,
/// ``author``, ``date``, ``maps``, ``every``); ``maps`` one dict per map
/// folder in recording order (``map``, ``map_name``, ``map_sha256``,
/// ``ticks``, ``seconds``, ``records``, ``end``, ``checkpoints``,
/// ``recording_bytes``, ``game_uuid``, ``prev_game_uuid``), as ``teeoracle
/// archive info --format json`` shows them; ``members`` and ``notes``
/// (what had to be rebuilt) are that command's too. Iterating gives each
/// map's recording as a ``Teehistorian`` streamed from the archive (never
/// extracted); ``log()``, ``seek()`` and ``verify()`` are the ``archive``
/// commands of those names. A file that is not an archive raises
/// ``DecodeError`` (code ``"archive"``).
#[pyclass(frozen, module = "teeoracle._teeoracle")]
pub struct Archive {
    name: String,
    path: PathBuf,
    shared: Shared,
    summary: lib::Summary,
}

#[pymethods]
impl Archive {
    /// Opens the archive at ``path`` (``str`` or ``os.PathLike``) and
    /// reads its ``info.txt`` files (through ``index.txt``, only the
    /// frames needed, for a bzip2 archive of ``pack``; other archives are
    /// decompressed once to a temporary file).
    #[new]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let path: PathBuf = match path.is_instance_of::<PyBytes>() {
            true => None,
            false => path.extract().ok(),
        }
        .ok_or_else(|| {
            let got = path
                .get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string());
            PyTypeError::new_err(format!(
                "expected a path (str or os.PathLike), got {got}: an archive is read in place"
            ))
        })?;
        let opened = path.clone();
        let (archive, summary) = interruptible(py, move || {
            let mut a = lib::Archive::open(&opened)?;
            let summary = a.summary()?;
            Ok::<_, ArchiveError>((a, summary))
        })?
        .map_err(|e| error(py, &e))?;
        Ok(Archive {
            name: path.display().to_string(),
            path,
            shared: Arc::new(Mutex::new(archive)),
            summary,
        })
    }

    /// The file's name as given.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// How the file is stored: ``"none"``, ``"bzip2"``, ``"gzip"``,
    /// ``"xz"`` or ``"zstd"``.
    #[getter]
    fn compression<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialize(py, &self.summary.compression)
    }

    /// The top-level ``info.txt``.
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialize(py, &self.summary.top)
    }

    /// One dict per map folder, in recording order.
    #[getter]
    fn maps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialize(py, &self.summary.maps)
    }

    /// Every member in archive order: ``name`` and ``size``.
    #[getter]
    fn members<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::serialize(py, &self.summary.members)
    }

    /// What had to be rebuilt from the recordings, or is odd, one line
    /// each (empty for a sound archive).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.summary.notes.clone()
    }

    fn __len__(&self) -> usize {
        self.summary.maps.len()
    }

    /// Map ``map``'s recording (``N/demodata.bin``) as a ``Teehistorian``,
    /// decompressed as it is read: memory stays bounded whatever its size.
    #[pyo3(signature = (map = 1))]
    fn recording(&self, py: Python<'_>, map: i64) -> PyResult<Teehistorian> {
        recording(py, &self.name, &self.shared, map_arg(map)?)
    }

    /// Each map's recording in turn, as ``recording(map)`` opens it.
    fn recordings(&self) -> Recordings {
        Recordings {
            name: self.name.clone(),
            shared: self.shared.clone(),
            maps: self.summary.maps.iter().map(|m| m.map).collect(),
            next: 0,
        }
    }

    fn __iter__(&self) -> Recordings {
        self.recordings()
    }

    /// The events of ``log.txt`` of every map, or of map ``map``: the
    /// lines of ``teeoracle archive log --format jsonl`` between its start
    /// and end lines (``kind`` ``"event"``: ``map``, ``tick``, ``time``,
    /// ``event``, ``fields``; ``"note"`` where a log had to be rebuilt).
    #[pyo3(signature = (map = None))]
    fn log<'py>(&self, py: Python<'py>, map: Option<i64>) -> PyResult<Bound<'py, PyList>> {
        let maps = match map {
            Some(m) => vec![map_arg(m)?],
            None => self.summary.maps.iter().map(|m| m.map).collect(),
        };
        let name = self.name.clone();
        let lines = with_archive(py, &self.shared, move |a| {
            let mut out = Vec::new();
            for n in maps {
                let (text, note) = a.log(n)?;
                if let Some(message) = note {
                    out.push(LogLine::Note { map: n, message });
                }
                for event in lib::log::events(&text) {
                    match event {
                        Ok(event) => out.push(LogLine::Event { map: n, event }),
                        // A log that passed its check reads back; if one
                        // does not, the archive is at fault.
                        Err(e) => return Ok(Err(format!("{name}: {n}/log.txt: {e}"))),
                    }
                }
            }
            Ok(Ok(out))
        })?
        .map_err(|message| errors::raise(py, message, "archive", None, None, None, None))?;
        let list = PyList::empty(py);
        for line in lines {
            list.append(convert::serialize(py, &line)?)?;
        }
        Ok(list)
    }

    /// The world of map ``map`` at tick ``at``, as ``teeoracle.replay``
    /// gives it for the map's recording: replayed from the nearest
    /// checkpoint at or before the tick (``archive seek``). A checkpoint
    /// that is damaged or disagrees with ``toc.txt`` is passed over with a
    /// ``UserWarning``. A negative tick, one after the map's end or a map
    /// the archive does not have raise ``ValueError``.
    #[pyo3(signature = (*, map = 1, at))]
    fn seek<'py>(&self, py: Python<'py>, map: i64, at: i64) -> PyResult<Bound<'py, PyAny>> {
        let n = map_arg(map)?;
        let tick = i32::try_from(at)
            .ok()
            .filter(|&t| t >= 0)
            .ok_or_else(|| PyValueError::new_err(format!("at={at}: a tick is never negative")))?;
        let s = with_archive(py, &self.shared, move |a| a.seek(n, tick))?;
        for note in &s.notes {
            errors::warn::<PyUserWarning>(py, &format!("{}: {note}", self.name), 1)?;
        }
        convert::serialize(py, &Document::new("teehistorian_world", &s.world))
    }

    /// ``teeoracle archive verify --format json``'s document: every member
    /// checked against the recordings (each decodes, re-encodes byte-exactly
    /// and replays cleanly; ``info.txt``, ``log.txt`` and every checkpoint
    /// are what the recording says). A bad archive is reported, not raised
    /// (``ok`` is ``False``, ``verdicts`` say why), as ``check`` reports a
    /// bad file; a file that is not an archive at all raises ``DecodeError``.
    fn verify<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (path, name) = (self.path.clone(), self.name.clone());
        // As the command does: the whole file read once, not through
        // index.txt.
        let report = interruptible(py, move || Ok(lib::Archive::open_full(&path)?.verify()))?
            .map_err(|e| error(py, &e))?;
        convert::serialize(py, &Document::new("archive_verify", &report.document(name)))
    }

    /// The Arrow C stream of the maps (a PyCapsule): one row per map
    /// folder, the columns of ``maps``.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batch = maps_batch(&self.summary.maps)
            .map_err(|e| PyValueError::new_err(format!("the maps as Arrow: {e}")))?;
        let schema = batch.schema();
        let reader = RecordBatchIterator::new([Ok(batch)], schema);
        let stream = arrow_array::ffi_stream::FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new(py, stream, Some(c"arrow_array_stream".to_owned()))
    }

    /// The maps as a ``pyarrow.Table`` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_arrow(slf.as_any())
    }

    /// The maps as a ``pandas.DataFrame`` (needs pandas, pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_pandas(slf.as_any())
    }

    /// The maps as a ``polars.DataFrame`` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_polars(slf.as_any())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Nothing to end: each recording is a reader of its own.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "<Archive {:?} of {} map(s)>",
            self.name,
            self.summary.maps.len()
        )
    }
}

/// A line of `archive log --format jsonl`.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum LogLine {
    Note {
        map: u32,
        message: String,
    },
    Event {
        map: u32,
        #[serde(flatten)]
        event: LogEvent,
    },
}

/// The maps as one Arrow record batch, a column per key of `maps`.
fn maps_batch(maps: &[MapLine]) -> Result<RecordBatch, ArrowError> {
    let mut map = UInt32Builder::new();
    let mut ticks = Int32Builder::new();
    let mut seconds = Float64Builder::new();
    let (mut records, mut checkpoints, mut bytes) = (
        UInt64Builder::new(),
        UInt64Builder::new(),
        UInt64Builder::new(),
    );
    let mut text: [StringBuilder; 5] = Default::default();
    for m in maps {
        map.append_value(m.map);
        ticks.append_value(m.ticks);
        seconds.append_value(m.seconds);
        records.append_option(m.records);
        checkpoints.append_value(m.checkpoints as u64);
        bytes.append_option(m.recording_bytes);
        let values = [
            &m.map_name,
            &m.map_sha256,
            &m.end,
            &m.game_uuid,
            &m.prev_game_uuid,
        ];
        for (b, v) in text.iter_mut().zip(values) {
            b.append_option(v.as_deref());
        }
    }
    let [name, sha, end, uuid, prev] = text.map(|mut b| Arc::new(b.finish()) as ArrayRef);
    let columns: [(&str, DataType, bool, ArrayRef); 11] = [
        ("map", DataType::UInt32, false, Arc::new(map.finish())),
        ("map_name", DataType::Utf8, true, name),
        ("map_sha256", DataType::Utf8, true, sha),
        ("ticks", DataType::Int32, false, Arc::new(ticks.finish())),
        (
            "seconds",
            DataType::Float64,
            false,
            Arc::new(seconds.finish()),
        ),
        (
            "records",
            DataType::UInt64,
            true,
            Arc::new(records.finish()),
        ),
        ("end", DataType::Utf8, true, end),
        (
            "checkpoints",
            DataType::UInt64,
            false,
            Arc::new(checkpoints.finish()),
        ),
        (
            "recording_bytes",
            DataType::UInt64,
            true,
            Arc::new(bytes.finish()),
        ),
        ("game_uuid", DataType::Utf8, true, uuid),
        ("prev_game_uuid", DataType::Utf8, true, prev),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, ty, null, _)| Field::new(*name, ty.clone(), *null))
        .collect();
    let arrays = columns.into_iter().map(|(.., a)| a).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// ``Archive.recordings()``: each map's recording as a ``Teehistorian``,
/// opened when it is reached.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Recordings {
    name: String,
    shared: Shared,
    maps: Vec<u32>,
    next: usize,
}

#[pymethods]
impl Recordings {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Teehistorian>> {
        let Some(&n) = self.maps.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        recording(py, &self.name, &self.shared, n).map(Some)
    }
}
