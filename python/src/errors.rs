//! Errors as Python exceptions: a file that does not decode raises
//! `teeoracle.DecodeError` (a `ValueError`) carrying the file byte, the
//! finding code `check` would give it, the tick and the crate's error as a
//! dict; a file that cannot be read raises `OSError` (its subclass for the
//! errno, e.g. `FileNotFoundError`); a file cut short warns with
//! `teeoracle.TruncatedWarning`.

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use std::path::Path;
use teeoracle::teehistorian::ReadError;

pyo3::create_exception!(
    _teeoracle,
    DecodeError,
    PyValueError,
    "Bytes that do not decode as the format says.\n\n\
     Attributes: ``offset`` (the file byte where the fault was found, or\n\
     ``None``), ``code`` (the finding code ``check`` gives it: ``\"decode\"``,\n\
     ``\"replay\"``, ...), ``tick`` (the game tick, or ``None``), ``context``\n\
     (what was being read, e.g. ``\"teehistorian.player_new.x\"``, or\n\
     ``None``) and ``error`` (the crate's error as a dict, as the JSON\n\
     reports print it, or ``None``)."
);

pyo3::create_exception!(
    _teeoracle,
    TruncatedWarning,
    PyUserWarning,
    "A file that ends without its end mark (a teehistorian file without\n\
     FINISH: the server stopped, or the copy was cut): every whole record\n\
     was given; ``end`` says where the file ends."
);

/// Warns that `name` ended truncated: `offset` the end of its last whole
/// record, `partial` the bytes of a cut one after it. Raises instead where
/// the warnings filter says so (``-W error``).
pub fn truncated(py: Python<'_>, name: &str, offset: u64, partial: usize) -> PyResult<()> {
    let cut = match partial {
        0 => String::new(),
        n => format!(", {n} bytes of a cut record after it"),
    };
    warn::<TruncatedWarning>(
        py,
        &format!(
            "{name}: truncated: no FINISH record; the last whole record ends at byte {offset}{cut}"
        ),
        1,
    )
}

/// Warns with the category `W` (raises where the warnings filter says so).
/// `stacklevel` 1 names the caller's line, 2 its caller's (through the
/// package's Python wrapper).
pub fn warn<W: pyo3::PyTypeInfo>(py: Python<'_>, message: &str, stacklevel: i32) -> PyResult<()> {
    // A NUL would end the C string early: a file name may hold one.
    let message = std::ffi::CString::new(message.replace('\0', "\\0"))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyErr::warn(py, &py.get_type::<W>(), &message, stacklevel)
}

pyo3::create_exception!(
    _teeoracle,
    MapMismatchWarning,
    PyUserWarning,
    "The map given to ``simulate`` is not the one the teehistorian header\n\
     names (its SHA-256, or CRC-32, differs): the positions will not match\n\
     the recording's."
);

/// A reader asked for more after its end: iterating it again would give
/// nothing, so it says so.
pub fn already_read(what: &str) -> PyErr {
    PyRuntimeError::new_err(format!(
        "{what} was read to its end (see .end): open it again to read it again"
    ))
}

/// A count argument below 1.
pub fn at_least_one(name: &str, value: i64) -> PyResult<usize> {
    match usize::try_from(value) {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "{name}={value}: must be at least 1"
        ))),
    }
}

/// A `DecodeError` with its attributes.
pub fn raise(
    py: Python<'_>,
    message: String,
    code: &str,
    offset: Option<u64>,
    tick: Option<i32>,
    context: Option<&str>,
    error: Option<Bound<'_, PyAny>>,
) -> PyErr {
    let err = DecodeError::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception object cannot fail short of
    // memory; if it does, the error raised is that one.
    let set = || -> PyResult<()> {
        value.setattr("offset", offset)?;
        value.setattr("code", code)?;
        value.setattr("tick", tick)?;
        value.setattr("context", context)?;
        value.setattr("error", error)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The crate's decode error as a `DecodeError` (code `decode`, as `check`
/// names it), `name` (a file) in front of its message.
pub fn decode(py: Python<'_>, name: &str, e: &teeoracle::codec::DecodeError) -> PyErr {
    let dict = match crate::convert::serialize(py, e) {
        Ok(d) => Some(d),
        Err(err) => return err,
    };
    let message = match name.is_empty() {
        true => e.to_string(),
        false => format!("{name}: {e}"),
    };
    raise(
        py,
        message,
        "decode",
        Some(e.offset),
        e.tick,
        Some(e.context),
        dict,
    )
}

/// An I/O error on `path` as the `OSError` Python raises for it.
pub fn io(path: &Path, e: &std::io::Error) -> PyErr {
    let name = path.display().to_string();
    match e.raw_os_error() {
        // OSError(errno, strerror, filename) picks the subclass.
        Some(code) => PyOSError::new_err((code, e.to_string(), name)),
        None => PyOSError::new_err(format!("{name}: {e}")),
    }
}

/// A folder walk's error as the `OSError` Python raises for it (e.g.
/// `FileNotFoundError` for a path that does not exist).
pub fn walk(e: &teeoracle::files::WalkError) -> PyErr {
    match e.source.raw_os_error() {
        Some(code) => PyOSError::new_err((
            code,
            format!("cannot {}: {}", e.what, e.source),
            e.path.display().to_string(),
        )),
        None => PyOSError::new_err(e.to_string()),
    }
}

/// A teehistorian stream's read error.
pub fn read(py: Python<'_>, path: &Path, e: &ReadError, tick: Option<i32>) -> PyErr {
    match e {
        ReadError::Io(e) => io(path, e),
        ReadError::Decode(d) => {
            let d = match tick {
                Some(t) if d.tick.is_none() => d.clone().at_tick(t),
                _ => d.clone(),
            };
            decode(py, &path.display().to_string(), &d)
        }
        other => PyValueError::new_err(format!("{}: {other}", path.display())),
    }
}
