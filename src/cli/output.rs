//! Shared output helpers: opening files, one-line error messages, and the
//! generic `key=value` rendering of serialisable records.

use super::Failure;
use std::fs::File;
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::Path;
use teeoracle::codec::{DecodeError, Mode};
use teeoracle::teehistorian::{Header, ReadError, StreamReader};

/// Buffered standard output.
pub fn stdout() -> BufWriter<StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// One line giving the byte offset (decimal and hex), the tick if known,
/// what was being read and what was expected.
pub fn describe(e: &DecodeError, tick: Option<i32>) -> String {
    let tick = tick.map(|t| format!(", tick {t}")).unwrap_or_default();
    format!(
        "at byte {} (0x{:x}){tick}: reading {}: {}",
        e.offset, e.offset, e.context, e.kind
    )
}

/// Turns a stream error into a failure naming the file and tick.
pub fn read_failure(path: &Path, e: ReadError, tick: Option<i32>) -> Failure {
    match e {
        ReadError::Io(e) => Failure::bad(format!("{}: {e}", path.display())),
        ReadError::Decode(e) => Failure::bad(format!("{}: {}", path.display(), describe(&e, tick))),
    }
}

/// Opens a teehistorian file as a bounded-memory stream.
pub fn open_teehistorian(path: &Path, mode: Mode) -> Result<(Header, StreamReader<File>), Failure> {
    let file = File::open(path).map_err(|e| Failure::bad(format!("{}: {e}", path.display())))?;
    StreamReader::new(file, mode).map_err(|e| read_failure(path, e, None))
}

/// Writes a value in pretty RON.
pub fn write_ron(out: &mut impl Write, value: &impl serde::Serialize) -> Result<(), Failure> {
    let config = ron::ser::PrettyConfig::new().indentor("  ".to_string());
    let text = ron::ser::to_string_pretty(value, config).map_err(Failure::bad)?;
    writeln!(out, "{text}")?;
    Ok(())
}
