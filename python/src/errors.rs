//! Errors as Python exceptions: a file that does not decode raises
//! `teeoracle.DecodeError` (a `ValueError`) carrying the file byte, the
//! finding code `check` would give it, the tick and the crate's error as a
//! dict; a file that cannot be read raises `OSError` (its subclass for the
//! errno, e.g. `FileNotFoundError`).

use pyo3::exceptions::{PyOSError, PyValueError};
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
