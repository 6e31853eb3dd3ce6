//! Packet captures from Python, lazily: the datagram lines of `pcap dump
//! --format jsonl` (each datagram with DDNet's verdict and the session
//! replay's anomalies), decoded by a worker thread as they are asked for
//! ([`crate::lines`]).

use crate::arrow;
use crate::errors;
use crate::lines::{self, Pass, Producer};
use crate::teehistorian::Input;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use teeoracle::capture::Capture as Frames;
use teeoracle::session::{self, Session};

/// The session's datagram lines, then its end line.
fn producer(frames: Arc<Frames>, port: u16) -> Producer {
    Arc::new(move |out| {
        let mut session = Session::new(&frames, port);
        while let Some(d) = session.next_datagram() {
            out.send(lines::json(&session::json::DatagramLine::new(&d))?, false)?;
        }
        let (totals, replay) = session.finish();
        lines::json(&session::json::EndLine::new(
            &frames, port, &totals, &replay,
        ))
    })
}

/// A packet capture (pcap or pcapng) of a Teeworlds/DDNet server's
/// traffic, decoded as it is read.
///
/// Iterating gives each UDP datagram as the ``datagram`` line of
/// ``teeoracle pcap dump --format jsonl``: ``frame``, ``time``,
/// ``direction``, ``peer``, ``version``, ``verdict`` (what DDNet 20.1 and
/// Teeworlds 0.7.5 do with it), ``packet`` (every field, chunk and
/// message) or ``error``, ``anomalies`` of the session replay, ...;
/// ``end`` is the end line once the datagrams have ended (``totals``,
/// ``replay``, ``truncated``, ``error``). ``port`` is the server's port
/// (found as the command finds it, unless given). The capture reads once.
#[pyclass(module = "teeoracle._teeoracle")]
pub struct Capture {
    name: String,
    path: PathBuf,
    from_bytes: bool,
    port: u16,
    end: Arc<Mutex<Option<String>>>,
    /// Only reached through `&mut self`.
    pass: Mutex<Pass>,
}

impl Capture {
    fn pass(&mut self) -> &mut Pass {
        match self.pass.get_mut() {
            Ok(p) => p,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

#[pymethods]
impl Capture {
    /// Opens ``source``: a path (``str`` or ``os.PathLike``) or the
    /// capture's ``bytes``; ``port`` the server's UDP port. Its frames are
    /// read now: bytes that are not a capture raise ``DecodeError``, a
    /// capture without UDP datagrams ``ValueError``.
    #[new]
    #[pyo3(signature = (source, port = None))]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>, port: Option<u16>) -> PyResult<Self> {
        let from_bytes = source.is_instance_of::<PyBytes>();
        let input = Input::of(source)?;
        let (name, path) = (input.name.clone(), input.path.clone());
        let bytes = input.bytes()?;
        let frames = py
            .detach(|| teeoracle::capture::read(&bytes))
            .map_err(|e| errors::decode(py, &name, &e))?;
        let Some(port) = port.or_else(|| session::server_port(&frames)) else {
            let why = frames
                .stop_note()
                .map_or_else(String::new, |n| format!("; {n}"));
            return Err(PyValueError::new_err(format!(
                "{name}: no UDP datagrams{why}"
            )));
        };
        let produce = producer(Arc::new(frames), port);
        let end = Arc::new(Mutex::new(None));
        let pass = Pass::new(produce, None, end.clone());
        Ok(Capture {
            name,
            path,
            from_bytes,
            port,
            end,
            pass: Mutex::new(pass),
        })
    }

    /// The file's name as given (``"<bytes>"`` for bytes).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The server's UDP port.
    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    /// The end line once the datagrams have ended, else ``None``.
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

    /// The Arrow C stream of the capture's datagrams (a PyCapsule): the
    /// rows of ``teeoracle export``'s ``datagrams`` table for this file.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let table = arrow::of_file("datagrams", &self.path, self.from_bytes)?;
        arrow::stream_capsule(py, &table)
    }

    /// The capture's datagrams as a ``pyarrow.Table`` (needs pyarrow).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_arrow(slf.as_any())
    }

    /// The datagrams as a ``pandas.DataFrame`` (needs pandas, pyarrow).
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_pandas(slf.as_any())
    }

    /// The datagrams as a ``polars.DataFrame`` (needs polars).
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        arrow::to_polars(slf.as_any())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Ends the reading (its worker stops).
    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.pass().finish();
        false
    }

    fn __repr__(&self) -> String {
        format!("<Capture {:?}>", self.name)
    }
}
