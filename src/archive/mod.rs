//! Recording archives: a server session's recordings in one TAR file, with
//! checkpoints for seeking, a table of contents, an event log and info
//! files (after the "network demo archive" layout of the seed).
//!
//! ```text
//! info.txt            version, name, author, date recorded, maps, checkpoint spacing
//! index.txt           where the later members and compressed frames start
//! 1/info.txt          the recording's map (name, SHA-256, CRC), settings, length
//! 1/toc.txt           checkpoint name, tick, byte offset in demodata.bin
//! 1/log.txt           one event per line (see [`log`](self::log))
//! 1/demodata.bin      the teehistorian file, bytes unchanged
//! 1/save1.ron ...     the replay state at each checkpoint (serde/RON)
//! 2/...               the next map (a map change continues the session)
//! ```
//!
//! Only `demodata.bin` is indispensable: every other member is derived from
//! the recordings, and a reader that finds one missing or damaged rebuilds
//! it and says so ([`Archive::verify`]); a checkpoint that disagrees with a
//! replay of its recording is reported, never used.
//!
//! The tar stream is compressed with bzip2 by default (plain tar on
//! request); gzip, xz and zstd are read too. Every member, the recording's
//! header and each checkpoint's bytes start a new bzip2 stream ("frame"),
//! and `index.txt` says where: seeking decompresses one checkpoint interval
//! of one recording, never the archive up to it. Members have fixed modes,
//! owners and times, so the same recordings always give the same bytes;
//! writing goes through a temporary file renamed into place.

pub mod check;
pub mod frames;
pub mod log;
pub mod members;
mod pack;
mod read;
pub mod recording;
pub mod text;

pub use frames::Compression;
pub use pack::{PackOptions, Packed, PackedMap, pack};
pub use read::{Archive, MapReport, Report, SeekResult, Status, Summary, Verdict};

use std::fmt;
use std::path::Path;

/// DDNet's server tick rate.
pub const TICKS_PER_SECOND: i32 = 50;
/// Default checkpoint spacing: 30 seconds of game time.
pub const DEFAULT_EVERY: i32 = 30 * TICKS_PER_SECOND;

/// Largest text member (`info.txt`, `toc.txt`, `log.txt`, `index.txt`)
/// or checkpoint a reader loads, whatever the tar header says.
pub const MAX_TEXT_MEMBER: u64 = 64 << 20;

/// Why an archive operation failed.
#[derive(Debug)]
pub enum ArchiveError {
    /// An input (archive or recording) that cannot be read or is not what
    /// it should be; the message names the file, the member and the byte.
    Bad(String),
    /// A request the archive cannot answer (no such map, a tick after the
    /// end, an output that exists).
    Request(String),
    /// Writing the output or a temporary file failed.
    Write(String),
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Bad(m) | ArchiveError::Request(m) | ArchiveError::Write(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for ArchiveError {}

/// True if `path` looks like an archive: named `.tar`, `.tar.bz2`,
/// `.tbz2`, `.tar.gz`, `.tgz`, `.tar.xz` or `.tar.zst`, or starting with
/// a tar header, or compressed with a tar header at the start of its
/// first decompressed block.
pub fn is_archive(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    const NAMES: [&str; 7] = [
        ".tar", ".tar.bz2", ".tbz2", ".tar.gz", ".tgz", ".tar.xz", ".tar.zst",
    ];
    if NAMES.iter().any(|ext| name.ends_with(ext)) {
        return true;
    }
    read::first_block(path).is_some_and(|block| frames::is_tar_header(&block))
}
