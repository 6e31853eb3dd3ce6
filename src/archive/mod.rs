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
mod text_error;

pub use frames::Compression;
pub use pack::{PackOptions, Packed, PackedMap, pack, pack_with};
pub use read::{
    Archive, MapLine, MapReport, MemberCheck, MemberLine, MemberOutcome, OpenOptions, Report,
    Resumed, SeekResult, Summary, Verified, VerifyTotals,
};

use crate::codec::DecodeError;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use text::TextError;

pub use crate::log::TICKS_PER_SECOND;
/// Default checkpoint spacing: 30 seconds of game time.
pub const DEFAULT_EVERY: i32 = 30 * TICKS_PER_SECOND;

pub use crate::compression::{DECOMPRESSION_RATIO, MIN_MAX_DECOMPRESSED, default_max_decompressed};

/// Largest text member (`info.txt`, `toc.txt`, `log.txt`, `index.txt`)
/// or checkpoint a reader loads, whatever the tar header says.
pub const MAX_TEXT_MEMBER: u64 = 64 << 20;

/// Why an archive operation failed. Each variant names the file (and the
/// member) it is about; [`ArchiveError::is_request`] tells a request the
/// archive cannot answer (a usage error) from a bad or unreadable file.
#[non_exhaustive]
#[derive(Debug)]
pub enum ArchiveError {
    /// A file could not be opened, read or written.
    Io {
        /// The file (an archive, a recording, an output, a temporary file's
        /// folder).
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// The file is not an archive.
    NotAnArchive {
        /// The file.
        path: PathBuf,
        /// What is there instead.
        why: NotArchive,
    },
    /// A member of the archive cannot be read as stored.
    Member {
        /// The archive.
        path: PathBuf,
        /// The member's name.
        member: String,
        /// What is wrong with it.
        problem: MemberProblem,
    },
    /// A recording that does not decode: an input of [`pack`] (`member`
    /// is `None`) or an archive's `demodata.bin`.
    Recording {
        /// The recording, or the archive holding it.
        path: PathBuf,
        /// The member, for a recording inside an archive.
        member: Option<String>,
        /// Where and why decoding stopped.
        error: DecodeError,
    },
    /// A map folder without its recording, the one member that cannot be
    /// rebuilt.
    MissingRecording {
        /// The archive.
        path: PathBuf,
        /// The map folder.
        map: u32,
    },
    /// There is no such map folder (a request).
    NoSuchMap {
        /// The archive.
        path: PathBuf,
        /// The map asked for.
        map: u32,
        /// The first and last map folders there are, if any.
        have: Option<(u32, u32)>,
    },
    /// There is no such member (a request).
    NoSuchMember {
        /// The archive.
        path: PathBuf,
        /// The name asked for.
        name: String,
    },
    /// A tick before the start of a recording (a request).
    TickBeforeStart {
        /// The tick asked for.
        tick: i32,
    },
    /// A tick after the end of a map's recording (a request).
    TickAfterEnd {
        /// The archive.
        path: PathBuf,
        /// The map folder.
        map: u32,
        /// The tick asked for.
        tick: i32,
        /// The recording's last tick.
        last_tick: i32,
    },
    /// An output folder that is not empty (a request).
    NotEmpty {
        /// The folder.
        dir: PathBuf,
    },
    /// Nothing to pack (a request).
    NoRecordings,
    /// An output compression teeoracle reads but does not write (a request).
    ReadOnly {
        /// The compression asked for.
        compression: Compression,
    },
    /// Two inputs of [`pack`] are the same game (a request).
    SameGame {
        /// The first input.
        first: PathBuf,
        /// The second.
        second: PathBuf,
        /// Their `game_uuid`.
        game_uuid: String,
    },
    /// Two inputs of [`pack`] both continue a third (a request).
    Fork {
        /// One input.
        first: PathBuf,
        /// The other.
        second: PathBuf,
        /// The input both name as their `prev_game_uuid`.
        continues: PathBuf,
    },
    /// The inputs' `prev_game_uuid` links form a loop (a request).
    Loop,
    /// An input changed while it was being packed.
    Changed {
        /// The input.
        path: PathBuf,
    },
    /// The archive decompresses to more than the cap, or a member is
    /// larger than it.
    OverCap {
        /// The archive.
        path: PathBuf,
        /// The member being decompressed when the cap was reached, or the
        /// member larger than the cap (`None`: between members).
        member: Option<String>,
        /// The cap, in bytes.
        cap: u64,
    },
}

/// Why a file is not an archive.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotArchive {
    /// It starts with neither a tar header nor bzip2, gzip, xz or zstd data.
    UnknownStart,
    /// Its tar stream holds no file.
    NoMembers,
    /// Its tar stream is broken before any file.
    Tar(TarFault),
}

/// Where a tar stream breaks.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TarFault {
    /// The tar reader could not start.
    NotTar,
    /// No valid header where the next member should start.
    BadHeader {
        /// Offset in the (uncompressed) tar stream.
        at: u64,
    },
    /// The stream ends inside a member.
    CutMember {
        /// The member.
        name: String,
        /// Bytes of it there are.
        read: u64,
        /// Bytes its header says.
        size: u64,
    },
}

/// What is wrong with a member as stored.
#[non_exhaustive]
#[derive(Debug)]
pub enum MemberProblem {
    /// Its header block is not a tar header (the checksum does not match).
    NotAHeader,
    /// Its name is not UTF-8.
    NameNotUtf8,
    /// Its header's size field is not a number.
    BadSize,
    /// A different member where one was expected.
    Unexpected {
        /// The member expected.
        expected: String,
        /// Its offset in the tar stream.
        at: u64,
        /// The member found there.
        found: String,
    },
    /// `index.txt` lists it at `at` with `size` bytes; the header there
    /// says otherwise.
    NotWhereIndexSays {
        /// Where index.txt puts it.
        at: u64,
        /// Its size as index.txt says.
        size: u64,
        /// The name in the header found there.
        found: String,
        /// The size in that header.
        found_size: u64,
    },
    /// Larger than a text member may be ([`MAX_TEXT_MEMBER`]).
    TooLarge {
        /// Its size.
        size: u64,
    },
    /// The archive ends inside it.
    CutShort {
        /// Bytes there are.
        read: u64,
        /// Bytes its header says.
        size: u64,
    },
    /// The first bzip2 stream holds more than `info.txt` and `index.txt`
    /// (recompressed?).
    FirstFrameHoldsMore,
    /// `index.txt` describes data of another compression.
    IndexFor {
        /// The compression it names.
        compression: String,
    },
    /// `index.txt` puts a frame after the end of the file.
    FrameAfterEnd {
        /// The frame's compressed offset.
        at: u64,
    },
    /// A text member that does not parse.
    Text(TextError),
    /// Reading it failed.
    Io(io::Error),
}

impl ArchiveError {
    /// True for a request the archive cannot answer (no such map, a tick
    /// after the end, an output folder that is not empty, ...): a usage
    /// error, not a bad file.
    pub fn is_request(&self) -> bool {
        matches!(
            self,
            ArchiveError::NoSuchMap { .. }
                | ArchiveError::NoSuchMember { .. }
                | ArchiveError::TickBeforeStart { .. }
                | ArchiveError::TickAfterEnd { .. }
                | ArchiveError::NotEmpty { .. }
                | ArchiveError::NoRecordings
                | ArchiveError::ReadOnly { .. }
                | ArchiveError::SameGame { .. }
                | ArchiveError::Fork { .. }
                | ArchiveError::Loop
        )
    }

    pub(crate) fn io(path: &Path, error: io::Error) -> ArchiveError {
        ArchiveError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// One line, naming the file (and member) first.
impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ArchiveError::NotAnArchive { path, why } => {
                write!(f, "{}: not an archive: {why}", path.display())
            }
            ArchiveError::Member {
                path,
                member,
                problem,
            } => write!(f, "{}: {member}: {problem}", path.display()),
            ArchiveError::Recording {
                path,
                member,
                error,
            } => match member {
                Some(m) => write!(f, "{}: {m}: {error}", path.display()),
                None => write!(f, "{}: {error}", path.display()),
            },
            ArchiveError::MissingRecording { path, map } => write!(
                f,
                "{}: {map}/demodata.bin is missing (the one member that cannot be rebuilt)",
                path.display()
            ),
            ArchiveError::NoSuchMap { path, map, have } => {
                write!(f, "{}: no map {map} (the archive has ", path.display())?;
                match have {
                    Some((a, b)) => write!(f, "maps {a} to {b})"),
                    None => write!(f, "no maps)"),
                }
            }
            ArchiveError::NoSuchMember { path, name } => {
                write!(f, "{}: no member {name}", path.display())
            }
            ArchiveError::TickBeforeStart { tick } => {
                write!(f, "tick {tick} is before the start (tick 0)")
            }
            ArchiveError::TickAfterEnd {
                path,
                map,
                tick,
                last_tick,
            } => write!(
                f,
                "tick {tick} is after the end of map {map} of {} (last tick {last_tick})",
                path.display()
            ),
            ArchiveError::NotEmpty { dir } => write!(f, "{} is not empty", dir.display()),
            ArchiveError::NoRecordings => f.write_str("no recordings to pack"),
            ArchiveError::ReadOnly { compression } => write!(
                f,
                "cannot write {0} archives (write bzip2 or plain tar; {0} is read only)",
                compression.name()
            ),
            ArchiveError::SameGame {
                first,
                second,
                game_uuid,
            } => write!(
                f,
                "{} and {} are the same game (game_uuid {game_uuid})",
                first.display(),
                second.display()
            ),
            ArchiveError::Fork {
                first,
                second,
                continues,
            } => write!(
                f,
                "{} and {} both continue {} (prev_game_uuid)",
                first.display(),
                second.display(),
                continues.display()
            ),
            ArchiveError::Loop => f.write_str("the recordings' prev_game_uuid links form a loop"),
            ArchiveError::OverCap { path, member, cap } => {
                write!(f, "{}: ", path.display())?;
                if let Some(m) = member {
                    write!(f, "{m}: ")?;
                }
                write!(
                    f,
                    "decompresses past {cap} bytes, the cap ({DECOMPRESSION_RATIO} times the archive's size, at least {} MiB): not read; --max-decompressed raises it",
                    MIN_MAX_DECOMPRESSED >> 20
                )
            }
            ArchiveError::Changed { path } => {
                write!(f, "{} changed while it was being packed", path.display())
            }
        }
    }
}

impl std::error::Error for ArchiveError {}

impl fmt::Display for NotArchive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotArchive::UnknownStart => {
                f.write_str("at byte 0: expected a tar header or bzip2, gzip, xz or zstd data")
            }
            NotArchive::NoMembers => f.write_str("expected a member, found none"),
            NotArchive::Tar(fault) => fault.fmt(f),
        }
    }
}

impl fmt::Display for TarFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TarFault::NotTar => f.write_str("expected a tar file"),
            TarFault::BadHeader { at } => write!(
                f,
                "expected a tar header at byte {at} (0x{at:x}) of the tar stream"
            ),
            TarFault::CutMember { name, read, size } => write!(
                f,
                "the tar stream ends inside {name} (after {read} of its {size} bytes)"
            ),
        }
    }
}

impl fmt::Display for MemberProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemberProblem::NotAHeader => {
                f.write_str("expected a tar header (its checksum does not match)")
            }
            MemberProblem::NameNotUtf8 => f.write_str("expected a UTF-8 member name"),
            MemberProblem::BadSize => f.write_str("expected a number in the header's size field"),
            MemberProblem::Unexpected {
                expected,
                at,
                found,
            } => write!(f, "expected {expected} at byte {at}, found {found:?}"),
            MemberProblem::NotWhereIndexSays {
                at,
                size,
                found,
                found_size,
            } => write!(
                f,
                "index.txt says it is at byte {at} ({size} bytes), found {found} ({found_size} bytes)"
            ),
            MemberProblem::TooLarge { size } => write!(
                f,
                "{size} bytes, more than the {MAX_TEXT_MEMBER} a text member may have"
            ),
            MemberProblem::CutShort { read, size } => {
                write!(f, "the archive ends after {read} of its {size} bytes")
            }
            MemberProblem::FirstFrameHoldsMore => f.write_str(
                "the first bzip2 stream holds more than info.txt and index.txt (recompressed?)",
            ),
            MemberProblem::IndexFor { compression } => {
                write!(f, "index.txt describes {compression} data")
            }
            MemberProblem::FrameAfterEnd { at } => write!(
                f,
                "index.txt puts a frame at compressed byte {at}, after the end of the file"
            ),
            MemberProblem::Text(e) => e.fmt(f),
            MemberProblem::Io(e) => e.fmt(f),
        }
    }
}

impl From<TextError> for MemberProblem {
    fn from(e: TextError) -> Self {
        MemberProblem::Text(e)
    }
}

impl From<io::Error> for MemberProblem {
    fn from(e: io::Error) -> Self {
        MemberProblem::Io(e)
    }
}

/// How far a long operation ([`pack_with`], [`Archive::verify_with`]) is:
/// bytes of recordings read so far, of `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Bytes read so far.
    pub done: u64,
    /// Bytes to read in all.
    pub total: u64,
}

/// A reader that tells `on_read` how many bytes each read returned.
pub(crate) struct Counted<R, F> {
    inner: R,
    on_read: F,
}

impl<R, F: FnMut(u64)> Counted<R, F> {
    pub(crate) fn new(inner: R, on_read: F) -> Self {
        Counted { inner, on_read }
    }
}

impl<R: io::Read, F: FnMut(u64)> io::Read for Counted<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        (self.on_read)(n as u64);
        Ok(n)
    }
}

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
    frames::first_block(path).is_some_and(|block| frames::is_tar_header(&block))
}
