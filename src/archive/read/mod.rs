//! Reading an archive: where its members are, reading them (from the
//! middle of a compressed file when `index.txt` allows), and what a reader
//! does with them, rebuilding whatever is lost from the recordings. One
//! file per job:
//!
//! - `open.rs`: opening, finding the members (through `index.txt`, or by
//!   reading the whole file) and checking `index.txt` against them;
//! - `access.rs`: reading a member, and reading the whole archive again
//!   when reading through `index.txt` fails;
//! - `summary.rs`: what `info` shows, and a map's `log.txt`;
//! - `seek.rs`: the world at a tick, from the nearest checkpoint;
//! - `verify.rs`: every member checked against the recordings;
//! - `unpack.rs`: the files written out, as verification resolves them.

mod access;
mod open;
mod seek;
mod summary;
mod unpack;
mod verify;

pub use seek::{Resumed, SeekResult};
pub use summary::{MapLine, MemberLine, Summary};
pub use verify::{MapReport, Report, Verified, VerifyTotals};

use super::frames::Compression;
use super::members::Member;
use crate::report::Finding;
use access::Source;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How [`Archive::open_with`] opens an archive.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenOptions {
    /// Read all of it once, as [`Archive::open_full`].
    pub full: bool,
    /// The cap on decompressed bytes and on any member's size (`None`:
    /// [`default_max_decompressed`](super::default_max_decompressed)).
    pub max_decompressed: Option<u64>,
}

/// The members of one map folder.
#[derive(Clone, Debug, Default)]
struct MapMembers {
    info: Option<usize>,
    toc: Option<usize>,
    log: Option<usize>,
    recording: Option<usize>,
    history: Option<usize>,
    saves: BTreeMap<u32, usize>,
}

/// How a member (or the archive) fared: not a file's [`Status`](crate::report::Status)
/// (a member can be rebuilt; it is never skipped or expected to fail),
/// but each has its [`Severity`](crate::report::Severity) ([`MemberOutcome::severity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberOutcome {
    /// Present and what the recording says.
    Ok,
    /// Worth knowing, not wrong (an optional member absent, an unknown one).
    Note,
    /// Missing, and rebuilt from the recording.
    Rebuilt,
    /// Sound but unusual (a recording cut by a crash).
    Warn,
    /// Present but wrong (it was rebuilt where it can be), or the
    /// recording itself is missing or unsound.
    Failed,
}

impl MemberOutcome {
    /// How much it matters in a file's verdict (`None`: nothing to say).
    pub fn severity(self) -> Option<crate::report::Severity> {
        use crate::report::Severity;
        match self {
            MemberOutcome::Ok => None,
            MemberOutcome::Note => Some(Severity::Note),
            MemberOutcome::Rebuilt | MemberOutcome::Warn => Some(Severity::Warn),
            MemberOutcome::Failed => Some(Severity::Fail),
        }
    }

    /// The word shown in reports.
    pub fn word(self) -> &'static str {
        match self {
            MemberOutcome::Ok => "ok",
            MemberOutcome::Note => "note",
            MemberOutcome::Rebuilt => "rebuilt",
            MemberOutcome::Warn => "warn",
            MemberOutcome::Failed => "FAIL",
        }
    }
}

/// One line of a verification: a member and how it fared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberCheck {
    /// A member name, `N/` for a map folder, or `archive` for the file as a
    /// whole.
    pub member: String,
    /// How it fared.
    pub status: MemberOutcome,
    /// What was found, in a line.
    pub detail: String,
    /// For a recording (`N/demodata.bin`): what the teehistorian pipeline
    /// found, the same findings `check` reports for the file (offsets are
    /// the recording's own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

impl MemberCheck {
    pub(super) fn new(
        member: impl Into<String>,
        status: MemberOutcome,
        detail: impl Into<String>,
    ) -> MemberCheck {
        MemberCheck {
            member: member.into(),
            status,
            detail: detail.into(),
            findings: Vec::new(),
        }
    }
}

/// An open archive.
pub struct Archive {
    path: PathBuf,
    compression: Compression,
    bytes: u64,
    source: Source,
    members: Vec<Member>,
    top: Option<usize>,
    index: Option<usize>,
    maps: BTreeMap<u32, MapMembers>,
    /// How the file was read, and what is odd about its structure.
    structure: Vec<MemberCheck>,
    /// The cap it was opened with.
    max_decompressed: Option<u64>,
}

impl Archive {
    /// The compression of the file.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Whether members are read through `index.txt`.
    pub fn indexed(&self) -> bool {
        matches!(self.source, Source::Frames { .. })
    }

    /// Member names and sizes, in archive order.
    pub fn members(&self) -> impl Iterator<Item = (&str, u64)> {
        self.members.iter().map(|m| (m.name.as_str(), m.size))
    }

    /// Map folder numbers present.
    pub fn map_numbers(&self) -> Vec<u32> {
        self.maps.keys().copied().collect()
    }
}
