//! `teeoracle` for Python: the extension module `teeoracle._teeoracle`
//! over the teeoracle crate's public API (pyo3, abi3). The Python package
//! (`python/teeoracle/`) re-exports it; its stubs are
//! `teeoracle/_teeoracle.pyi`.
//!
//! Every value handed to Python is the JSON the command line prints for
//! the same thing (the crate's `Serialize` types, through
//! [`convert::to_py`]), except the common teehistorian records, which are
//! built directly with the same keys in the same order (a test compares
//! the two ways for every record of the corpus). No Rust panic crosses
//! into Python: errors are mapped to Python exceptions ([`errors`]).

use pyo3::prelude::*;

mod archive;
mod arrow;
mod capture;
mod convert;
mod demo;
mod errors;
mod jobs;
mod lines;
mod map;
mod records;
mod teehistorian;

/// The module.
#[pymodule]
fn _teeoracle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SCHEMA_VERSION", teeoracle::schema::SCHEMA_VERSION)?;
    m.add("DecodeError", py.get_type::<errors::DecodeError>())?;
    m.add(
        "MapMismatchWarning",
        py.get_type::<errors::MapMismatchWarning>(),
    )?;
    m.add(
        "TruncatedWarning",
        py.get_type::<errors::TruncatedWarning>(),
    )?;
    m.add("KINDS", records::kinds(py)?)?;
    m.add_class::<teehistorian::Teehistorian>()?;
    m.add_class::<teehistorian::Batches>()?;
    m.add_class::<records::RecordBatch>()?;
    m.add_class::<teehistorian::Ticks>()?;
    m.add_class::<arrow::Table>()?;
    m.add_class::<demo::Demo>()?;
    m.add_class::<lines::Lines>()?;
    m.add_class::<capture::Capture>()?;
    m.add_class::<map::Map>()?;
    m.add_class::<archive::Archive>()?;
    m.add_class::<archive::Recordings>()?;
    m.add_function(wrap_pyfunction!(jobs::format_of, m)?)?;
    m.add(
        "TABLES",
        teeoracle::export::TABLES
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>(),
    )?;
    m.add_function(wrap_pyfunction!(arrow::tables, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::export, m)?)?;
    m.add_function(wrap_pyfunction!(teehistorian::replay, m)?)?;
    m.add_function(wrap_pyfunction!(teehistorian::records_via_serde, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::decode_packet, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::encode_packets, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::check, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::cli, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::simulate, m)?)?;
    Ok(())
}
