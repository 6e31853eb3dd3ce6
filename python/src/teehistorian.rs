//! Teehistorian files from Python: the streaming reader (records one by
//! one or in batches), the replayed world per tick and at the end.

use crate::arrow;
use crate::convert;
use crate::errors;
use crate::records::{self, Columns, RecordBatch};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Mutex;
use teeoracle::codec::Mode;
use teeoracle::compression::BoxRead;
use teeoracle::input::Source;
use teeoracle::teehistorian::json::{EndLine, HeaderLine};
use teeoracle::teehistorian::{End, ReadError, Replay, ReplayConfig, StreamReader, WorldAtError};

/// Where a file comes from: a path, or bytes in memory.
pub struct Input {
    pub name: String,
    pub path: PathBuf,
    source: Source,
}

impl Input {
    /// A path (`str` or `os.PathLike`) or `bytes`.
    pub fn of(obj: &Bound<'_, PyAny>) -> PyResult<Input> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            let name = "<bytes>".to_owned();
            return Ok(Input {
                path: PathBuf::from(&name),
                source: Source::bytes(name.clone(), b.as_bytes().to_vec()),
                name,
            });
        }
        let path: PathBuf = obj.extract().map_err(|_| {
            let got = obj
                .get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string());
            PyTypeError::new_err(format!(
                "expected a path (str or os.PathLike) or bytes, got {got}"
            ))
        })?;
        Ok(Input {
            name: path.display().to_string(),
            source: Source::file(&path),
            path,
        })
    }

    /// The content, decompressed if the file is compressed.
    pub fn reader(self) -> PyResult<(String, PathBuf, BoxRead)> {
        let reader = self
            .source
            .into_reader()
            .map_err(|e| errors::io(&self.path, &e))?;
        Ok((self.name, self.path, reader))
    }

    /// The whole content in memory.
    pub fn bytes(self) -> PyResult<Vec<u8>> {
        let path = self.path;
        self.source.into_bytes().map_err(|e| errors::io(&path, &e))
    }
}

/// The open stream and what it has given so far.
struct State {
    /// The file's name as given, for messages.
    name: String,
    reader: StreamReader<BoxRead>,
    records: u64,
    tick: i32,
    error: Option<teeoracle::codec::DecodeError>,
    /// The stream has ended (FINISH, the end of a cut file, or an error).
    done: bool,
    /// An error to raise on the next call (the batch before it came first).
    pending: Option<PyErr>,
}

fn open(obj: &Bound<'_, PyAny>) -> PyResult<(String, PathBuf, Py<PyAny>, State)> {
    let (name, path, src) = Input::of(obj)?.reader()?;
    start(obj.py(), name, path, src)
}

/// The stream `src` of the file `name` (at `path`), its header read.
fn start(
    py: Python<'_>,
    name: String,
    path: PathBuf,
    src: BoxRead,
) -> PyResult<(String, PathBuf, Py<PyAny>, State)> {
    let (header, reader) =
        StreamReader::new(src, Mode::Lenient).map_err(|e| errors::read(py, &path, &e, None))?;
    let header = convert::serialize(py, &HeaderLine::new(&header))?.unbind();
    let state = State {
        name: name.clone(),
        reader,
        records: 0,
        tick: 0,
        error: None,
        done: false,
        pending: None,
    };
    Ok((name, path, header, state))
}

/// A teehistorian file, read as a stream (bounded memory, whatever its
/// size; compressed files are decompressed on the way).
///
/// Iterating gives each record as a dict, exactly the JSON line of
/// ``teeoracle teehistorian dump --format jsonl``: ``offset``, ``tick``,
/// ``kind``, then the kind's fields. ``batches(n)`` gives the same records
/// in columns, many times faster. A record that does not decode raises
/// ``DecodeError`` (everything before it was given); the iteration then
/// stops. A file without FINISH warns with ``TruncatedWarning`` at its
/// end. The reader reads once: iterating it (or ``batches()``) again after
/// its end raises ``RuntimeError``.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Teehistorian {
    name: String,
    path: PathBuf,
    /// Where its Arrow stream reads the file from.
    origin: Origin,
    header: Py<PyAny>,
    // Only ever reached through `&mut self` (`get_mut`, no locking): the
    // mutex makes the class `Sync`, as pyo3 wants.
    state: Mutex<State>,
}

/// Where a `Teehistorian` comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    File,
    Bytes,
    /// A member of an archive, streamed from it.
    Archive,
}

impl Teehistorian {
    fn table(&self) -> PyResult<arrow::Table> {
        if self.origin == Origin::Archive {
            return Err(PyValueError::new_err(format!(
                "{}: a recording inside an archive has no file of its own for an Arrow stream \
                 (Archive.to_arrow() gives the maps; `teeoracle archive unpack` extracts it)",
                self.name
            )));
        }
        arrow::of_file(
            "teehistorian_records",
            &self.path,
            self.origin == Origin::Bytes,
        )
    }

    /// A recording streamed from elsewhere (an archive's member), `name`
    /// naming it in messages. The header is read now.
    pub fn of_stream(py: Python<'_>, name: String, src: BoxRead) -> PyResult<Teehistorian> {
        let path = PathBuf::from(&name);
        let (name, path, header, state) = start(py, name, path, src)?;
        Ok(Teehistorian {
            name,
            path,
            origin: Origin::Archive,
            header,
            state: Mutex::new(state),
        })
    }

    fn state(&mut self) -> &mut State {
        match self.state.get_mut() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

#[pymethods]
impl Teehistorian {
    /// Opens ``source``: a path (``str`` or ``os.PathLike``) or the file's
    /// ``bytes``. The header is read now: a file that is not a
    /// teehistorian file raises ``DecodeError``.
    #[new]
    fn new(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (name, path, header, state) = open(source)?;
        Ok(Teehistorian {
            name,
            path,
            origin: match source.is_instance_of::<PyBytes>() {
                true => Origin::Bytes,
                false => Origin::File,
            },
            header,
            state: Mutex::new(state),
        })
    }

    /// The header line: ``kind`` (``"header"``), ``offset``, ``json_len``
    /// and ``info`` (the header's JSON, parsed: ``version``, ``game_uuid``,
    /// ``server_version``, ``map_name``, ``config``, ``tuning``, ...).
    #[getter]
    fn header(&self, py: Python<'_>) -> Py<PyAny> {
        self.header.clone_ref(py)
    }

    /// The file's name as given (``"<bytes>"`` for bytes).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Records given so far.
    #[getter]
    fn records(&mut self) -> u64 {
        self.state().records
    }

    /// The end line once the stream has ended, else ``None``: ``kind``
    /// (``"end"``), ``records``, ``end`` (``{"end": "finished", "offset":
    /// N}`` or ``{"end": "truncated", "offset": N, "partial": N}``, or
    /// ``None`` after an error) and ``error`` (the error that stopped it,
    /// or ``None``).
    #[getter]
    fn end<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        end_line(py, self.state())
    }

    fn __iter__(mut slf: PyRefMut<'_, Self>) -> PyResult<PyRefMut<'_, Self>> {
        match slf.state().done {
            true => Err(errors::already_read(&slf.__repr__())),
            false => Ok(slf),
        }
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Teehistorian { path, state, .. } = self;
        let s = match state.get_mut() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(e) = s.pending.take() {
            return Err(e);
        }
        if s.done {
            return Ok(None);
        }
        match s.reader.next_record() {
            Ok(Some(rec)) => {
                s.records += 1;
                s.tick = rec.tick;
                records::record_dict(py, &rec).map(Some)
            }
            Ok(None) => ended(py, s).map(|()| None),
            Err(e) => Err(fail(py, path, s, e)),
        }
    }

    /// The next (at most) ``size`` records as one ``RecordBatch``, or
    /// ``None`` at the end. The decoding runs without the GIL.
    #[pyo3(signature = (size = 65536))]
    fn next_batch(&mut self, py: Python<'_>, size: i64) -> PyResult<Option<RecordBatch>> {
        let path = self.path.clone();
        let size = errors::at_least_one("size", size)?;
        let s = self.state();
        if let Some(e) = s.pending.take() {
            return Err(e);
        }
        if s.done {
            return Ok(None);
        }
        let reader = &mut s.reader;
        let (cols, result) = py.detach(|| {
            // Reserved up to a usual batch: `size` is the caller's, and a huge
            // one must not reserve (or overflow) before a record is read.
            let mut cols = Columns::with_capacity(size.min(1 << 16));
            let mut last = None;
            let result = reader.for_each_record(|rec| {
                last = Some(rec.tick);
                match cols.push(rec) {
                    Err(e) => ControlFlow::Break(Err(e)),
                    Ok(()) if cols.len >= size => ControlFlow::Break(Ok(())),
                    Ok(()) => ControlFlow::Continue(()),
                }
            });
            (cols, (result, last))
        });
        let (result, last) = result;
        s.records += cols.len as u64;
        if let Some(t) = last {
            s.tick = t;
        }
        match result {
            Ok(ControlFlow::Break(Err(e))) => {
                return Err(PyValueError::new_err(format!("a record as JSON: {e}")));
            }
            Ok(ControlFlow::Break(Ok(()))) => {}
            Ok(ControlFlow::Continue(())) => {
                if let Err(warned) = ended(py, s) {
                    // The records before the end come first.
                    if cols.len > 0 {
                        s.pending = Some(warned);
                        return Ok(Some(RecordBatch::new(cols)));
                    }
                    return Err(warned);
                }
            }
            Err(e) => {
                let err = fail(py, &path, s, e);
                // The records before the error come first; the error is
                // raised on the next call.
                if cols.len > 0 {
                    s.pending = Some(err);
                    return Ok(Some(RecordBatch::new(cols)));
                }
                return Err(err);
            }
        }
        if cols.len == 0 {
            return Ok(None);
        }
        Ok(Some(RecordBatch::new(cols)))
    }

    /// An iterator of ``RecordBatch``es of ``size`` records (the last may
    /// be shorter; ``size`` at least 1), continuing where this reader is.
    #[pyo3(signature = (size = 65536))]
    fn batches(mut slf: PyRefMut<'_, Self>, size: i64) -> PyResult<Batches> {
        errors::at_least_one("size", size)?;
        if slf.state().done {
            return Err(errors::already_read(&slf.__repr__()));
        }
        Ok(Batches {
            th: slf.into(),
            size,
        })
    }

    /// The Arrow C stream of the file's records (a PyCapsule): the rows
    /// of ``teeoracle export``'s ``teehistorian_records`` table for this
    /// file, read anew from its start (whatever the reader has given).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyCapsule>> {
        let _ = requested_schema;
        arrow::stream_capsule(py, &self.table()?)
    }

    /// The file's records as a ``pyarrow.Table`` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_arrow(slf.as_any())
    }

    /// The file's records as a ``pandas.DataFrame`` (needs pandas, pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_pandas(slf.as_any())
    }

    /// The file's records as a ``polars.DataFrame`` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_polars(slf.as_any())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Ends the reading: iterating further gives nothing.
    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.state().done = true;
        false
    }

    fn __repr__(&self) -> String {
        format!("<Teehistorian {:?}>", self.name)
    }
}

/// The stream ended without an error: warns if the file was cut
/// ([`errors::truncated`]; the warning is raised where the filter says
/// so).
fn ended(py: Python<'_>, s: &mut State) -> PyResult<()> {
    s.done = true;
    match s.reader.end() {
        Some(End::Truncated { offset, partial }) => errors::truncated(py, &s.name, offset, partial),
        _ => Ok(()),
    }
}

/// The stream's end line (``end`` of the readers), ``None`` before it.
fn end_line<'py>(py: Python<'py>, s: &State) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !s.done {
        return Ok(None);
    }
    let end: Option<End> = s.reader.end();
    convert::serialize(py, &EndLine::new(s.records, end, s.error.as_ref())).map(Some)
}

/// The stream failed: remember the error (for ``end``), raise it.
fn fail(py: Python<'_>, path: &std::path::Path, s: &mut State, e: ReadError) -> PyErr {
    s.done = true;
    if let ReadError::Decode(d) = &e {
        s.error = Some(d.clone().at_tick(s.tick));
    }
    errors::read(py, path, &e, Some(s.tick))
}

/// ``Teehistorian.batches(size)``: yields ``RecordBatch``es.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Batches {
    th: Py<Teehistorian>,
    size: i64,
}

#[pymethods]
impl Batches {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<RecordBatch>> {
        let mut th = self
            .th
            .bind(py)
            .try_borrow_mut()
            .map_err(|_| PyRuntimeError::new_err("the reader is in use elsewhere"))?;
        th.next_batch(py, self.size)
    }
}

/// The replayed world at each tick: see ``ticks`` in the package.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Ticks {
    name: String,
    path: PathBuf,
    state: Mutex<TickState>,
}

impl Ticks {
    fn state(&mut self) -> &mut TickState {
        match self.state.get_mut() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

struct TickState {
    stream: State,
    replay: Replay,
    /// Client ids the records have named, in order.
    cids: BTreeSet<i32>,
    /// A record of the current tick was handled.
    started: bool,
    inconsistencies: u64,
}

/// `{"tick": T, "players": [...]}`: every player the records named, as
/// the replay has it.
fn tick_dict<'py>(
    py: Python<'py>,
    replay: &Replay,
    cids: &BTreeSet<i32>,
) -> PyResult<Bound<'py, PyAny>> {
    let list = PyList::empty(py);
    for &cid in cids {
        if let Some(p) = replay.player(cid) {
            list.append(convert::serialize(py, p)?)?;
        }
    }
    let d = PyDict::new(py);
    d.set_item("tick", replay.tick())?;
    d.set_item("players", list)?;
    Ok(d.into_any())
}

#[pymethods]
impl Ticks {
    #[new]
    fn new(source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (name, path, _, stream) = open(source)?;
        Ok(Ticks {
            name,
            path,
            state: Mutex::new(TickState {
                stream,
                replay: Replay::new(ReplayConfig::default()),
                cids: BTreeSet::new(),
                started: false,
                inconsistencies: 0,
            }),
        })
    }

    fn __iter__(mut slf: PyRefMut<'_, Self>) -> PyResult<PyRefMut<'_, Self>> {
        match slf.state().stream.done {
            true => Err(errors::already_read(&slf.__repr__())),
            false => Ok(slf),
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Ends the reading: iterating further gives nothing.
    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.state().stream.done = true;
        false
    }

    fn __repr__(&self) -> String {
        format!("<Ticks {:?}>", self.name)
    }

    /// Inconsistencies the replay met so far (records that do not fit the
    /// world, e.g. a PLAYER_DIFF for a player without a character).
    #[getter]
    fn inconsistencies(&mut self) -> u64 {
        self.state().inconsistencies
    }

    /// The end line once the records have ended, else ``None``: as
    /// ``Teehistorian.end``.
    #[getter]
    fn end<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        end_line(py, &self.state().stream)
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let path = self.path.clone();
        let TickState {
            stream,
            replay,
            cids,
            started,
            inconsistencies,
        } = self.state();
        loop {
            if let Some(e) = stream.pending.take() {
                return Err(e);
            }
            if stream.done {
                return Ok(None);
            }
            match stream.reader.next_record() {
                Ok(Some(rec)) => {
                    stream.records += 1;
                    stream.tick = rec.tick;
                    // The state at the end of a tick, before the first
                    // record of the next one changes it.
                    let out = match *started && replay.peek_tick(&rec.msg) > replay.tick() {
                        true => Some(tick_dict(py, replay, cids)?),
                        false => None,
                    };
                    for cid in rec.msg.cids().into_iter().flatten() {
                        cids.insert(cid);
                    }
                    if replay.handle(rec.offset, &rec.msg).is_err() {
                        *inconsistencies += 1;
                    }
                    *started = true;
                    if out.is_some() {
                        return Ok(out);
                    }
                }
                Ok(None) => {
                    let warned = ended(py, stream);
                    if !*started {
                        return warned.map(|()| None);
                    }
                    // The last tick comes first; a warning made an error
                    // is raised on the next call.
                    stream.pending = warned.err();
                    return tick_dict(py, replay, cids).map(Some);
                }
                Err(e) => return Err(fail(py, &path, stream, e)),
            }
        }
    }
}

/// The world at ``at`` (default: the end), as ``teeoracle teehistorian
/// replay --format json`` prints it.
#[pyfunction]
#[pyo3(signature = (source, at = None, strict = false))]
pub fn replay<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    at: Option<i32>,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(at) = at.filter(|&at| at < 0) {
        return Err(PyValueError::new_err(format!(
            "at={at}: a tick is never negative"
        )));
    }
    let (name, path, _, mut s) = open(source)?;
    let world = py.detach(|| teeoracle::teehistorian::world_at(&mut s.reader, at, strict, |_| ()));
    let world = match world {
        Ok(world) => world,
        Err(WorldAtError::Inconsistent(inc)) => {
            return Err(errors::raise(
                py,
                format!("{name}: {inc}"),
                "replay",
                Some(inc.offset),
                Some(inc.tick),
                None,
                None,
            ));
        }
        Err(WorldAtError::Read { error, last_tick }) => {
            return Err(errors::read(py, &path, &error, Some(last_tick)));
        }
        Err(WorldAtError::PastEnd { at, last_tick }) => {
            return Err(PyValueError::new_err(format!(
                "tick {at} is after the end of {name} (last tick {last_tick})"
            )));
        }
    };
    convert::serialize(
        py,
        &teeoracle::schema::Document::new("teehistorian_world", &world),
    )
}

/// Every record's dict through serde only (no hand-built dicts): what the
/// tests compare ``Teehistorian``'s records with.
#[pyfunction]
pub fn records_via_serde<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let (_, path, _, mut s) = open(source)?;
    let list = PyList::empty(py);
    loop {
        match s.reader.next_record() {
            Ok(Some(rec)) => {
                s.tick = rec.tick;
                list.append(records::slow(py, &rec)?)?;
            }
            Ok(None) => return Ok(list),
            Err(e) => return Err(errors::read(py, &path, &e, Some(s.tick))),
        }
    }
}
