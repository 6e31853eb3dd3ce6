//! Reading a member: through `index.txt` (from the frame it starts in,
//! its header checked first) or from the whole tar stream, what a failed
//! read means (`Fault`), and reading the whole archive again when
//! reading through `index.txt` fails (`Archive::retrying`).

use super::{Archive, MapMembers, MemberCheck, MemberOutcome, OpenOptions};
use crate::archive::frames::{Compression, Frame, read_frames_from};
use crate::archive::members::{Slot, parse_header};
use crate::archive::recording::{Analysis, Plan, analyse};
use crate::archive::text::{Expected, SaveFile, TextError};
use crate::archive::{ArchiveError, Counted, MAX_TEXT_MEMBER, MemberProblem};
use crate::teehistorian::ReadError;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Where the uncompressed tar stream comes from.
pub(super) enum Source {
    /// A plain tar file, read in place.
    Plain(PathBuf),
    /// A compressed archive, decompressed once into a temporary file.
    Spool(NamedTempFile),
    /// A bzip2 archive read from the frame at or before the wanted byte,
    /// as `index.txt` says (positions are absolute, uncompressed).
    Frames { path: PathBuf, frames: Vec<Frame> },
}

impl Source {
    /// The tar stream from byte `at` on.
    fn read_from(&self, at: u64) -> io::Result<Box<dyn Read + Send>> {
        let plain = |mut file: File| -> io::Result<Box<dyn Read + Send>> {
            file.seek(SeekFrom::Start(at))?;
            Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
        };
        match self {
            Source::Plain(path) => plain(File::open(path)?),
            Source::Spool(tmp) => plain(tmp.reopen()?),
            Source::Frames { path, frames } => {
                let i = frames.partition_point(|f| f.uncompressed <= at).max(1) - 1;
                let frame = frames[i];
                let mut r =
                    read_frames_from(File::open(path)?, Compression::Bzip2, frame.compressed)?;
                let skip = at - frame.uncompressed;
                if io::copy(&mut (&mut r).take(skip), &mut io::sink())? != skip {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                Ok(r)
            }
        }
    }
}

/// Reading a member failed.
pub(super) enum Fault {
    /// The member cannot be used as stored (too large, cut short, not
    /// text): rebuild it.
    Damaged(Damage),
    /// Reading through `index.txt` failed: read the whole archive instead.
    Retry(Damage),
    /// Nothing can be done.
    Fail(ArchiveError),
}

/// A member that cannot be used as stored, and why.
pub(super) struct Damage {
    pub(super) member: String,
    pub(super) problem: MemberProblem,
}

impl Damage {
    fn into_error(self, path: &Path) -> ArchiveError {
        ArchiveError::Member {
            path: path.to_path_buf(),
            member: self.member,
            problem: self.problem,
        }
    }
}

/// What is wrong, without the member's name (the verdict names it).
impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.problem.fmt(f)
    }
}

impl From<ArchiveError> for Fault {
    fn from(e: ArchiveError) -> Self {
        Fault::Fail(e)
    }
}

impl Archive {
    fn find(&self, name: &str) -> Result<usize, ArchiveError> {
        self.members
            .iter()
            .rposition(|m| {
                m.name == name || Slot::parse(&m.name).is_some_and(|s| s.to_string() == name)
            })
            .ok_or_else(|| ArchiveError::NoSuchMember {
                path: self.path.clone(),
                name: name.to_string(),
            })
    }

    /// A member's bytes (at most [`MAX_TEXT_MEMBER`]).
    pub fn member_bytes(&self, name: &str) -> Result<Vec<u8>, ArchiveError> {
        let i = self.find(name)?;
        self.read_capped(i).map_err(|f| self.fault_error(f))
    }

    /// Streams a member's bytes to `out`; returns how many there were.
    pub fn copy_member(&self, name: &str, out: &mut impl Write) -> Result<u64, ArchiveError> {
        let i = self.find(name)?;
        let m = &self.members[i];
        let member = |problem| ArchiveError::Member {
            path: self.path.clone(),
            member: m.name.clone(),
            problem,
        };
        let mut r = self.member_reader(i, 0).map_err(member)?;
        let n = io::copy(&mut r, out).map_err(|e| member(e.into()))?;
        if n != m.size {
            return Err(member(MemberProblem::CutShort {
                read: n,
                size: m.size,
            }));
        }
        Ok(n)
    }

    /// Map `n`'s recording (`N/demodata.bin`) as a stream, decompressed
    /// as it is read (through `index.txt` when it can be): nothing of it
    /// is held in memory or written out. A read that fails midway is an
    /// I/O error of the stream.
    pub fn recording_reader(&mut self, n: u32) -> Result<Box<dyn Read + Send>, ArchiveError> {
        self.retrying(|a| {
            let rec = a.recording(n)?;
            a.member_reader(rec, 0).map_err(|e| a.read_fault(rec, e))
        })
    }

    fn fault_error(&self, f: Fault) -> ArchiveError {
        match f {
            Fault::Damaged(d) | Fault::Retry(d) => d.into_error(&self.path),
            Fault::Fail(e) => e,
        }
    }

    /// The data of member `i` from byte `offset` of it on. Read through
    /// `index.txt`, the member's header is checked first.
    pub(super) fn member_reader(
        &self,
        i: usize,
        offset: u64,
    ) -> Result<Box<dyn Read + Send>, MemberProblem> {
        let m = &self.members[i];
        if let (Source::Frames { .. }, 0) = (&self.source, offset) {
            let mut r = self.source.read_from(m.header)?;
            let mut block = [0u8; 512];
            r.read_exact(&mut block)?;
            let (name, size) = parse_header(&block)?;
            if name != m.name || size != m.size {
                return Err(MemberProblem::NotWhereIndexSays {
                    at: m.header,
                    size: m.size,
                    found: name,
                    found_size: size,
                });
            }
            return Ok(Box::new(r.take(m.size)));
        }
        let r = self.source.read_from(m.data + offset)?;
        Ok(Box::new(r.take(m.size.saturating_sub(offset))))
    }

    /// A fault reading member `i`: through the index, worth a full read.
    pub(super) fn read_fault(&self, i: usize, problem: impl Into<MemberProblem>) -> Fault {
        let damage = self.damage(i, problem);
        match self.source {
            Source::Frames { .. } => Fault::Retry(damage),
            _ => Fault::Damaged(damage),
        }
    }

    fn damage(&self, i: usize, problem: impl Into<MemberProblem>) -> Damage {
        Damage {
            member: self.members[i].name.clone(),
            problem: problem.into(),
        }
    }

    fn read_capped(&self, i: usize) -> Result<Vec<u8>, Fault> {
        let m = &self.members[i];
        if m.size > MAX_TEXT_MEMBER {
            return Err(Fault::Damaged(
                self.damage(i, MemberProblem::TooLarge { size: m.size }),
            ));
        }
        let mut data = Vec::with_capacity(m.size.min(1 << 20) as usize);
        self.member_reader(i, 0)
            .and_then(|mut r| Ok(r.read_to_end(&mut data)?))
            .map_err(|e| self.read_fault(i, e))?;
        if (data.len() as u64) < m.size {
            return Err(self.read_fault(
                i,
                MemberProblem::CutShort {
                    read: data.len() as u64,
                    size: m.size,
                },
            ));
        }
        Ok(data)
    }

    pub(super) fn read_text(&self, i: usize) -> Result<String, Fault> {
        String::from_utf8(self.read_capped(i)?)
            .map_err(|_| Fault::Damaged(self.damage(i, TextError::whole(Expected::Utf8))))
    }

    /// Reads a member that may be absent: `Ok(None)` if it is; a damaged
    /// one is `Some(Err(what is wrong))`.
    pub(super) fn stored_text(
        &self,
        i: Option<usize>,
    ) -> Result<Option<Result<String, String>>, Fault> {
        let Some(i) = i else { return Ok(None) };
        match self.read_text(i) {
            Ok(text) => Ok(Some(Ok(text))),
            Err(Fault::Damaged(why)) => Ok(Some(Err(why.to_string()))),
            Err(other) => Err(other),
        }
    }

    /// Runs `f`; if reading through `index.txt` failed, reads the whole
    /// archive and runs it again.
    pub(super) fn retrying<T>(
        &mut self,
        f: impl Fn(&Archive) -> Result<T, Fault>,
    ) -> Result<T, ArchiveError> {
        match f(self) {
            Ok(t) => Ok(t),
            Err(Fault::Retry(why)) => {
                let options = OpenOptions {
                    full: true,
                    max_decompressed: self.max_decompressed,
                };
                let mut full = Archive::open_with(&self.path, &options)?;
                full.structure.insert(
                    0,
                    MemberCheck::new(
                        "index.txt",
                        MemberOutcome::Note,
                        format!(
                            "reading {} through it: {why}: the archive was read from the start",
                            why.member
                        ),
                    ),
                );
                *self = full;
                f(self).map_err(|fault| self.fault_error(fault))
            }
            Err(fault) => Err(self.fault_error(fault)),
        }
    }

    pub(super) fn map(&self, n: u32) -> Result<&MapMembers, ArchiveError> {
        self.maps.get(&n).ok_or_else(|| ArchiveError::NoSuchMap {
            path: self.path.clone(),
            map: n,
            have: self
                .maps
                .keys()
                .next()
                .zip(self.maps.keys().last())
                .map(|(&a, &b)| (a, b)),
        })
    }

    /// Analyses map `n`'s recording; `on_read` hears of every read.
    pub(super) fn analyse_map(
        &self,
        n: u32,
        plan: Plan<'_>,
        roundtrip: bool,
        on_read: impl FnMut(u64),
    ) -> Result<(usize, Analysis), Fault> {
        let rec = self.recording(n)?;
        let reader = self
            .member_reader(rec, 0)
            .map_err(|e| self.read_fault(rec, e))?;
        let src = Counted::new(BufReader::with_capacity(1 << 16, reader), on_read);
        match analyse(src, plan, roundtrip) {
            Ok(a) => Ok((rec, a)),
            Err(e) => Err(self.bad_recording(rec, e)),
        }
    }

    /// Map `n`'s recording, which must be there.
    pub(super) fn recording(&self, n: u32) -> Result<usize, Fault> {
        self.map(n)?.recording.ok_or_else(|| {
            Fault::Fail(ArchiveError::MissingRecording {
                path: self.path.clone(),
                map: n,
            })
        })
    }

    /// A recording (member `rec`) that cannot be read, or whose header does
    /// not decode.
    pub(super) fn bad_recording(&self, rec: usize, e: ReadError) -> Fault {
        match e {
            ReadError::Io(e) => self.read_fault(rec, e),
            ReadError::Decode(error) => Fault::Fail(ArchiveError::Recording {
                path: self.path.clone(),
                member: Some(self.members[rec].name.clone()),
                error,
            }),
        }
    }

    /// Checkpoint member `i`, listed at byte `at` of its recording: what
    /// it parses to (or why it cannot be used) and its text. It is read
    /// only when no larger than a checkpoint there can be; a fault other
    /// than damage is raised.
    pub(super) fn read_save(
        &self,
        i: usize,
        at: u64,
    ) -> Result<(Result<SaveFile, String>, String), Fault> {
        let limit = max_save_size(at);
        let size = self.members[i].size;
        if size > limit {
            let why = format!("{size} bytes, more than a checkpoint at byte {at} can be ({limit})");
            return Ok((Err(why), String::new()));
        }
        match self.read_text(i) {
            Ok(text) => Ok((SaveFile::parse(&text).map_err(|e| e.to_string()), text)),
            Err(Fault::Damaged(why)) => Ok((Err(why.to_string()), String::new())),
            Err(other) => Err(other),
        }
    }
}

/// The largest `save<k>.ron` a checkpoint at byte `at` of a recording can
/// be. A pass takes a checkpoint only where the records before it outweigh
/// its [`weight`](crate::teehistorian::Replay::weight), and a checkpoint's
/// RON is about four times its weight: 16 times, plus a MiB for small
/// recordings, is never reached by one this crate wrote.
fn max_save_size(at: u64) -> u64 {
    at.saturating_mul(16).saturating_add(1 << 20)
}
