//! Demos from Python, lazily: the events of `demo events --format jsonl`
//! decoded by a worker thread as they are asked for ([`crate::lines`]).

use crate::arrow;
use crate::convert;
use crate::errors;
use crate::lines::{self, Lines, Pass, Producer};
use crate::teehistorian::Input;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The demo player's event lines, then its end line.
fn producer(bytes: Arc<Vec<u8>>) -> Producer {
    Arc::new(move |out| {
        // It decoded when the demo was opened.
        let mut events =
            teeoracle::demo::Events::new(&bytes).map_err(|e| lines::Stop::Failed(e.to_string()))?;
        let end = teeoracle::demo::json::for_each_event(&mut events, |line| {
            match out.wants(line.kind) {
                true => out.send(lines::json(line)?, line.kind == "snapshot"),
                false => Ok(()),
            }
        })?;
        lines::json(&end)
    })
}

/// A demo's events, as DDNet's demo player meets them, decoded as they
/// are asked for.
///
/// ``header`` is the header line of ``teeoracle demo events --format
/// jsonl``; iterating gives its event lines in order (``kind``: ``tick``,
/// ``message``, ``snapshot`` or ``fault``; a snapshot with every item,
/// typed), and ``end`` is its end line once a pass has reached the end
/// (``error`` says what stopped the player, if anything). The demo reads
/// once: iterating it again after its end raises ``RuntimeError``.
/// ``snapshots()`` and ``messages()`` are passes of their own over the
/// file, of one kind of event.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Demo {
    name: String,
    path: PathBuf,
    from_bytes: bool,
    header: Py<PyAny>,
    produce: Producer,
    end: Arc<Mutex<Option<String>>>,
    /// The demo's own pass (only reached through `&mut self`).
    pass: Mutex<Option<Pass>>,
}

impl Demo {
    fn pass(&mut self) -> &mut Pass {
        let fresh = Pass::new(self.produce.clone(), None, self.end.clone());
        let slot = match self.pass.get_mut() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        slot.get_or_insert(fresh)
    }

    fn of_kind(&self, kind: &'static str) -> Lines {
        Lines::new(Pass::new(
            self.produce.clone(),
            Some(kind),
            self.end.clone(),
        ))
    }

    fn table(&self) -> PyResult<arrow::Table> {
        arrow::of_file("demo_events", &self.path, self.from_bytes)
    }
}

#[pymethods]
impl Demo {
    /// Opens ``source``: a path (``str`` or ``os.PathLike``) or the demo's
    /// ``bytes``. The header is read now: a file that is not a demo raises
    /// ``DecodeError``.
    #[new]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let from_bytes = source.is_instance_of::<PyBytes>();
        let input = Input::of(source)?;
        let (name, path) = (input.name.clone(), input.path.clone());
        let bytes = input.bytes()?;
        let events =
            teeoracle::demo::Events::new(&bytes).map_err(|e| errors::decode(py, &name, &e))?;
        let info = events.info();
        let header = teeoracle::demo::json::HeaderLine::new(&info);
        let header = convert::serialize(py, &header)?.unbind();
        Ok(Demo {
            name,
            path,
            from_bytes,
            header,
            produce: producer(Arc::new(bytes)),
            end: Arc::new(Mutex::new(None)),
            pass: Mutex::new(None),
        })
    }

    /// The header line: ``kind`` (``"header"``), the demo's version, map,
    /// type, length, timeline, ...
    #[getter]
    fn header(&self, py: Python<'_>) -> Py<PyAny> {
        self.header.clone_ref(py)
    }

    /// The file's name as given (``"<bytes>"`` for bytes).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The end line once a pass has reached the end, else ``None``:
    /// ``events``, ``chunks``, ``truncated_bytes``, ``error``, ...
    #[getter]
    fn end<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        lines::end(py, &self.end)
    }

    fn __iter__(mut slf: PyRefMut<'_, Self>) -> PyResult<PyRefMut<'_, Self>> {
        match slf.pass().done {
            true => Err(errors::already_read(&slf.__repr__())),
            false => Ok(slf),
        }
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.pass().next(py)
    }

    /// The snapshot events (the full snapshot after each keyframe or
    /// delta), a pass of their own over the demo.
    fn snapshots(&self) -> Lines {
        self.of_kind("snapshot")
    }

    /// The message events (``message`` decoded, ``data`` as hex), a pass
    /// of their own over the demo.
    fn messages(&self) -> Lines {
        self.of_kind("message")
    }

    /// The Arrow C stream of the demo's events (a PyCapsule): the rows of
    /// ``teeoracle export``'s ``demo_events`` table for this file.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        arrow::stream_capsule(py, &self.table()?)
    }

    /// The demo's events as a ``pyarrow.Table`` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_arrow(slf.as_any())
    }

    /// The demo's events as a ``pandas.DataFrame`` (needs pandas, pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_pandas(slf.as_any())
    }

    /// The demo's events as a ``polars.DataFrame`` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_polars(slf.as_any())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Stops the demo's own pass (its worker ends).
    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.pass().finish();
        false
    }

    fn __repr__(&self) -> String {
        format!("<Demo {:?}>", self.name)
    }
}
