//! Reading an archive: where its members are, reading them (from the
//! middle of a compressed file when `index.txt` allows), and what a reader
//! does with them: summarise, seek, verify, unpack, rebuilding whatever
//! is lost from the recordings.

use super::frames::{self, Compression, CountingBufRead, Frame, read_frames_from};
use super::members::{self, MapMember, Member, Slot, catalogue, parse_header};
use super::recording::{
    Analysis, MIN_EVERY, Plan, analyse, finish_world, read_header, replay_until,
};
use super::text::{
    self, Index, MapSummary, SaveFile, TextError, TocEntry, TopInfo, map_info, parse_history,
    parse_map_info, parse_toc, render_history, render_toc,
};
use super::{
    ArchiveError, Counted, DEFAULT_EVERY, MAX_TEXT_MEMBER, MemberProblem, NotArchive, Progress, log,
};
use crate::codec::Mode;
use crate::report::Finding;
use crate::teehistorian::{End, HeaderInfo, ReadError, Replay, ReplayConfig, StreamReader, World};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Cursor, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// The first 512 bytes of the tar stream in `path` (decompressed if it is
/// compressed), if there are that many.
pub(super) fn first_block(path: &Path) -> Option<[u8; 512]> {
    let mut file = File::open(path).ok()?;
    let mut head = Vec::with_capacity(512);
    (&mut file).take(512).read_to_end(&mut head).ok()?;
    let compression = Compression::detect(&head)?;
    file.seek(SeekFrom::Start(0)).ok()?;
    let src = BufReader::new(file);
    let mut block = [0u8; 512];
    let ok = match compression {
        Compression::None => {
            head.len() == 512 && {
                block.copy_from_slice(&head);
                true
            }
        }
        Compression::Bzip2 => bzip2::bufread::BzDecoder::new(src)
            .read_exact(&mut block)
            .is_ok(),
        Compression::Gzip => flate2::bufread::GzDecoder::new(src)
            .read_exact(&mut block)
            .is_ok(),
        Compression::Zstd => ruzstd::decoding::StreamingDecoder::new(src)
            .ok()?
            .read_exact(&mut block)
            .is_ok(),
        Compression::Xz => {
            // A push decoder: stop it once the block is full.
            let mut sink = Prefix(Vec::with_capacity(512));
            let _ = lzma_rs::xz_decompress(&mut { src }, &mut sink);
            sink.0.len() == 512 && {
                block.copy_from_slice(&sink.0);
                true
            }
        }
    };
    ok.then_some(block)
}

/// Keeps the first 512 bytes written, then refuses more.
struct Prefix(Vec<u8>);

impl Write for Prefix {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = 512 - self.0.len();
        if room == 0 {
            return Err(io::Error::other("enough"));
        }
        let n = room.min(buf.len());
        self.0.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How [`Archive::open_with`] opens an archive.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenOptions {
    /// Read all of it once, as [`Archive::open_full`].
    pub full: bool,
    /// The cap on decompressed bytes and on any member's size (`None`:
    /// [`default_max_decompressed`](super::default_max_decompressed)).
    pub max_decompressed: Option<u64>,
}

/// A writer that takes at most `left` more bytes, then refuses.
struct Capped<W> {
    out: W,
    left: u64,
    /// A write was refused: there was more.
    refused: bool,
}

impl<W: Write> Write for Capped<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            self.refused = true;
            return Err(io::Error::other("the decompression cap"));
        }
        let n = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.out.write(&buf[..n])?;
        self.left -= n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Where the uncompressed tar stream comes from.
enum Source {
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

/// How a member (or the archive) fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatus {
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

impl MemberStatus {
    /// The word shown in reports.
    pub fn word(self) -> &'static str {
        match self {
            MemberStatus::Ok => "ok",
            MemberStatus::Note => "note",
            MemberStatus::Rebuilt => "rebuilt",
            MemberStatus::Warn => "warn",
            MemberStatus::Failed => "FAIL",
        }
    }
}

/// One line of a verification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberVerdict {
    /// A member name, `N/` for a map folder, or `archive` for the file as a
    /// whole.
    pub member: String,
    /// How it fared.
    pub status: MemberStatus,
    /// What was found, in a line.
    pub detail: String,
    /// For a recording (`N/demodata.bin`): what the teehistorian pipeline
    /// found, the same findings `check` reports for the file (offsets are
    /// the recording's own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

impl MemberVerdict {
    fn new(
        member: impl Into<String>,
        status: MemberStatus,
        detail: impl Into<String>,
    ) -> MemberVerdict {
        MemberVerdict {
            member: member.into(),
            status,
            detail: detail.into(),
            findings: Vec::new(),
        }
    }
}

/// Reading a member failed.
enum Fault {
    /// The member cannot be used as stored (too large, cut short, not
    /// text): rebuild it.
    Damaged(Damage),
    /// Reading through `index.txt` failed: read the whole archive instead.
    Retry(Damage),
    /// Nothing can be done.
    Fail(ArchiveError),
}

/// A member that cannot be used as stored, and why.
struct Damage {
    member: String,
    problem: MemberProblem,
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
    structure: Vec<MemberVerdict>,
    /// The cap it was opened with.
    max_decompressed: Option<u64>,
}

/// What `info` shows.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// How the file is stored.
    pub compression: Compression,
    /// The file's size.
    pub bytes: u64,
    /// Read through `index.txt` (only the frames needed).
    pub indexed: bool,
    /// The top-level `info.txt`.
    pub top: TopInfo,
    /// The map folders, in order.
    pub maps: Vec<MapLine>,
    /// Every member, in archive order.
    pub members: Vec<MemberLine>,
    /// What had to be rebuilt or was odd.
    pub notes: Vec<String>,
}

/// A member of the archive: name and size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberLine {
    /// Its name, e.g. `1/demodata.bin`.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
}

/// One map in a [`Summary`].
#[derive(Clone, Debug, Serialize)]
pub struct MapLine {
    /// The map folder (1 is the first).
    pub map: u32,
    /// The map's name.
    pub map_name: Option<String>,
    /// The recording's last tick.
    pub ticks: i32,
    /// Checkpoints listed in `toc.txt` (or stored, without one).
    pub checkpoints: usize,
    /// The recording's size (`None`: missing).
    pub recording_bytes: Option<u64>,
    /// The recording's `game_uuid`.
    pub game_uuid: Option<String>,
    /// Its `prev_game_uuid` (set when it continues a previous map).
    pub prev_game_uuid: Option<String>,
}

/// The result of a seek.
#[derive(Clone, Debug)]
pub struct SeekResult {
    /// The world at the tick.
    pub world: World,
    /// The checkpoint the replay resumed from (`None`: from the start of
    /// the recording).
    pub from: Option<Resumed>,
    /// Records replayed after it.
    pub records: u64,
    /// Checkpoints not used and why, replay inconsistencies.
    pub notes: Vec<String>,
}

/// The checkpoint a seek resumed from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resumed {
    /// Its member, e.g. `2/save3.ron`.
    pub member: String,
    /// The last tick it holds.
    pub tick: i32,
    /// The offset in the recording where the replay resumed.
    pub offset: u64,
}

/// What verification found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// How the file is stored.
    pub compression: Compression,
    /// The file's size.
    pub bytes: u64,
    /// One per member (and for the archive as a whole), in archive order.
    pub verdicts: Vec<MemberVerdict>,
    /// The maps whose recording is there.
    pub maps: Vec<MapReport>,
    /// The top-level `info.txt` as it should be.
    #[serde(skip)]
    top_text: String,
}

/// What a verification counted, for its last line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyTotals {
    /// Map folders with a recording.
    pub maps: usize,
    /// Records of all of them.
    pub records: u64,
    /// Checkpoints that agree with the replay.
    pub checkpoints_agree: usize,
    /// Members rebuilt (missing).
    pub rebuilt: usize,
    /// Verdicts that failed.
    pub failed: usize,
}

impl fmt::Display for VerifyTotals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} map(s), {} records, {} checkpoint(s) agree; {} rebuilt, {} failed",
            self.maps, self.records, self.checkpoints_agree, self.rebuilt, self.failed
        )
    }
}

impl Report {
    /// True if anything is present but wrong, or a recording is missing
    /// or unsound.
    pub fn failed(&self) -> bool {
        self.verdicts
            .iter()
            .any(|v| v.status == MemberStatus::Failed)
    }

    /// Verdicts with a status other than `ok`.
    pub fn remarks(&self) -> impl Iterator<Item = &MemberVerdict> {
        self.verdicts
            .iter()
            .filter(|v| v.status != MemberStatus::Ok)
    }

    /// What was counted.
    pub fn totals(&self) -> VerifyTotals {
        let count = |s: MemberStatus| self.verdicts.iter().filter(|v| v.status == s).count();
        VerifyTotals {
            maps: self.maps.len(),
            records: self.maps.iter().map(|m| m.records).sum(),
            checkpoints_agree: self.maps.iter().map(|m| m.checkpoints_agree).sum(),
            rebuilt: count(MemberStatus::Rebuilt),
            failed: count(MemberStatus::Failed),
        }
    }
}

/// One map as verified.
#[derive(Clone, Debug, Serialize)]
pub struct MapReport {
    /// The map folder.
    pub map: u32,
    /// The map's name.
    pub map_name: Option<String>,
    /// The recording's records.
    pub records: u64,
    /// Its last tick.
    pub last_tick: i32,
    /// How it ended (`None`: stopped by a decode error).
    pub end: Option<End>,
    /// Checkpoints that agree with the replay.
    pub checkpoints_agree: usize,
    /// Members as they should be: name in the folder, bytes.
    #[serde(skip)]
    resolved: Vec<(String, Vec<u8>)>,
    #[serde(skip)]
    recording: Option<usize>,
}

/// One member of a frame: header, data (at most `cap` bytes), padding.
fn read_own_member(
    r: &mut impl Read,
    at: &mut u64,
    expected: Slot,
) -> Result<(Member, Vec<u8>), MemberProblem> {
    let mut block = [0u8; 512];
    r.read_exact(&mut block)?;
    let (name, size) = parse_header(&block)?;
    if Slot::parse(&name) != Some(expected) {
        return Err(MemberProblem::Unexpected {
            expected: expected.to_string(),
            at: *at,
            found: name,
        });
    }
    if size > MAX_TEXT_MEMBER {
        return Err(MemberProblem::TooLarge { size });
    }
    // Read as far as the data goes, not allocated up front from the header.
    let mut data = Vec::new();
    let mut pad = [0u8; 512];
    let read = r.take(size).read_to_end(&mut data)? as u64;
    if read != size {
        return Err(MemberProblem::CutShort { read, size });
    }
    r.read_exact(&mut pad[..members::padding(size)])?;
    let member = Member {
        name,
        header: *at,
        data: *at + 512,
        size,
        truncated: false,
    };
    *at += 512 + size + members::padding(size) as u64;
    Ok((member, data))
}

/// Members and frames of a bzip2 archive as its first frame (`info.txt`
/// and `index.txt`) describes them.
fn framed(path: &Path, bytes: u64) -> Result<(Vec<Member>, Vec<Frame>), MemberProblem> {
    let file = File::open(path)?;
    let mut src = CountingBufRead::new(BufReader::new(file));
    let mut at = 0u64;
    let (info, text) = {
        let mut head = frames::bzip2_frame(&mut src);
        let (info, _) = read_own_member(&mut head, &mut at, Slot::TopInfo)?;
        let (index, text) = read_own_member(&mut head, &mut at, Slot::Index)?;
        if head.read(&mut [0u8])? != 0 {
            return Err(MemberProblem::FirstFrameHoldsMore);
        }
        ((info, index), text)
    };
    let body_c = src.consumed;
    let text =
        String::from_utf8(text).map_err(|_| TextError::whole(super::text::Expected::Utf8))?;
    let index = Index::parse(&text)?;
    if !index.describes(Compression::Bzip2) {
        return Err(MemberProblem::IndexFor {
            compression: index.compression,
        });
    }
    let mut frames = vec![Frame {
        uncompressed: 0,
        compressed: 0,
    }];
    for f in &index.frames {
        let frame = Frame {
            uncompressed: f.uncompressed + at,
            compressed: f.compressed + body_c,
        };
        if frame.compressed >= bytes {
            return Err(MemberProblem::FrameAfterEnd {
                at: frame.compressed,
            });
        }
        frames.push(frame);
    }
    let mut list = vec![info.0, info.1];
    list.extend(index.members.iter().map(|m| Member {
        name: m.name.clone(),
        header: m.header + at,
        data: m.header + at + 512,
        size: m.size,
        truncated: false,
    }));
    Ok((list, frames))
}

impl Archive {
    /// Opens an archive to read parts of it: a bzip2 archive with a usable
    /// `index.txt` is read frame by frame; others as [`Archive::open_full`].
    ///
    /// ```
    /// use std::path::Path;
    /// use teeoracle::archive::Archive;
    /// let mut archive = Archive::open(Path::new("corpus/archive/E_map_change.tar.bz2"))?;
    /// assert!(archive.indexed(), "no index.txt");
    /// assert_eq!(archive.map_numbers(), [1, 2]);
    /// // The world of map 2 at tick 700: from the checkpoint before it.
    /// let seek = archive.seek(2, 700)?;
    /// assert_eq!(seek.world.tick, 700);
    /// assert_eq!(seek.from.unwrap().member, "2/save2.ron");
    /// // Verification replays every recording and checks every member.
    /// let report = archive.verify();
    /// assert!(!report.failed(), "{report:?}");
    /// assert_eq!(report.totals().records, 3911);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: &Path) -> Result<Archive, ArchiveError> {
        Archive::open_with(path, &OpenOptions::default())
    }

    /// Opens an archive reading all of it once (a compressed one is
    /// decompressed to a temporary file), with its members found from their
    /// own headers and `index.txt` checked against them.
    pub fn open_full(path: &Path) -> Result<Archive, ArchiveError> {
        Archive::open_with(
            path,
            &OpenOptions {
                full: true,
                ..OpenOptions::default()
            },
        )
    }

    /// Opens an archive as `options` say.
    pub fn open_with(path: &Path, options: &OpenOptions) -> Result<Archive, ArchiveError> {
        let full = options.full;
        let io = |e| ArchiveError::io(path, e);
        let not_an_archive = |why| ArchiveError::NotAnArchive {
            path: path.to_path_buf(),
            why,
        };
        let mut file = File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        let cap = options
            .max_decompressed
            .unwrap_or_else(|| super::default_max_decompressed(bytes));
        let over_cap = |member: Option<String>| ArchiveError::OverCap {
            path: path.to_path_buf(),
            member,
            cap,
        };
        let mut head = Vec::with_capacity(512);
        (&mut file).take(512).read_to_end(&mut head).map_err(io)?;
        let compression =
            Compression::detect(&head).ok_or_else(|| not_an_archive(NotArchive::UnknownStart))?;
        let mut structure = Vec::new();
        if compression == Compression::Bzip2 && !full {
            match framed(path, bytes) {
                Ok((members, frames)) => {
                    if let Some(m) = members.iter().find(|m| m.size > cap) {
                        return Err(over_cap(Some(m.name.clone())));
                    }
                    let source = Source::Frames {
                        path: path.to_path_buf(),
                        frames,
                    };
                    let mut archive =
                        Archive::assemble(path, compression, bytes, source, members, structure);
                    archive.max_decompressed = options.max_decompressed;
                    return Ok(archive);
                }
                Err(why) => structure.push(MemberVerdict::new(
                    "index.txt",
                    MemberStatus::Note,
                    format!("not usable ({why}): the archive is read from the start"),
                )),
            }
        }
        let (source, tar_len, boundaries) = match compression {
            Compression::None => (Source::Plain(path.to_path_buf()), bytes, Vec::new()),
            _ => {
                let scratch = |e| ArchiveError::io(&std::env::temp_dir(), e);
                let mut tmp = NamedTempFile::new().map_err(scratch)?;
                let (found, reached_cap) = {
                    let buffered = BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
                    let mut out = Capped {
                        out: buffered,
                        left: cap,
                        refused: false,
                    };
                    let found = frames::decompress_to(path, compression, &mut out);
                    let reached = out.refused;
                    let flushed = out.out.flush();
                    match (found, reached) {
                        (_, true) => (None, true),
                        (found, false) => (Some(flushed.and(found).map_err(scratch)?), false),
                    }
                };
                if reached_cap {
                    // Name the member the cap cut.
                    let tar = tmp.reopen().map_err(scratch)?;
                    let len = tmp.as_file().metadata().map_err(scratch)?.len();
                    let cut = catalogue(tar, len)
                        .members
                        .into_iter()
                        .find(|m| m.data.saturating_add(m.size) > len);
                    return Err(over_cap(cut.map(|m| m.name)));
                }
                let found = found.unwrap_or_default();
                if let Some(why) = found.error {
                    structure.push(MemberVerdict::new("archive", MemberStatus::Failed, why));
                }
                let len = tmp.as_file().metadata().map_err(scratch)?.len();
                (Source::Spool(tmp), len, found.frames)
            }
        };
        let tar = match &source {
            Source::Plain(p) => File::open(p),
            Source::Spool(tmp) => tmp.reopen(),
            Source::Frames { .. } => unreachable!("not for a full read"),
        }
        .map_err(io)?;
        let found = catalogue(tar, tar_len);
        if let Some(m) = found.members.iter().find(|m| m.size > cap) {
            return Err(over_cap(Some(m.name.clone())));
        }
        if found.members.is_empty() {
            return Err(not_an_archive(
                found.broken.map_or(NotArchive::NoMembers, NotArchive::Tar),
            ));
        }
        for note in found.ignored {
            structure.push(MemberVerdict::new(
                "archive",
                MemberStatus::Note,
                format!("{note}: ignored"),
            ));
        }
        if let Some(why) = found.broken {
            structure.push(MemberVerdict::new(
                "archive",
                MemberStatus::Failed,
                why.to_string(),
            ));
        } else if found.no_end_marker {
            structure.push(MemberVerdict::new(
                "archive",
                MemberStatus::Warn,
                "the tar stream ends without its end-of-archive blocks (cut short?)",
            ));
        }
        let mut archive =
            Archive::assemble(path, compression, bytes, source, found.members, structure);
        archive.check_index(&boundaries);
        archive.max_decompressed = options.max_decompressed;
        Ok(archive)
    }

    /// Sorts the members into the layout.
    fn assemble(
        path: &Path,
        compression: Compression,
        bytes: u64,
        source: Source,
        members: Vec<Member>,
        mut structure: Vec<MemberVerdict>,
    ) -> Archive {
        let (mut top, mut index, mut maps) = (None, None, BTreeMap::<u32, MapMembers>::new());
        for (i, m) in members.iter().enumerate() {
            let Some(slot) = Slot::parse(&m.name) else {
                structure.push(MemberVerdict::new(
                    &m.name,
                    MemberStatus::Note,
                    "not part of the layout: ignored",
                ));
                continue;
            };
            let place = match slot {
                Slot::TopInfo => &mut top,
                Slot::Index => &mut index,
                Slot::Map(n, member) => {
                    let mm = maps.entry(n).or_default();
                    match member {
                        MapMember::Info => &mut mm.info,
                        MapMember::Toc => &mut mm.toc,
                        MapMember::Log => &mut mm.log,
                        MapMember::Recording => &mut mm.recording,
                        MapMember::History => &mut mm.history,
                        MapMember::Save(k) => {
                            if mm.saves.insert(k, i).is_some() {
                                structure.push(MemberVerdict::new(
                                    &m.name,
                                    MemberStatus::Note,
                                    "stored twice: the last copy is used, as tar extracts it",
                                ));
                            }
                            continue;
                        }
                    }
                }
            };
            if place.replace(i).is_some() {
                structure.push(MemberVerdict::new(
                    &m.name,
                    MemberStatus::Note,
                    "stored twice: the last copy is used, as tar extracts it",
                ));
            }
        }
        Archive {
            path: path.to_path_buf(),
            compression,
            bytes,
            source,
            members,
            top,
            index,
            maps,
            structure,
            max_decompressed: None,
        }
    }

    /// Compares `index.txt` with the members found and, for bzip2, with
    /// where its streams really start (`boundaries`).
    fn check_index(&mut self, boundaries: &[Frame]) {
        let verdict = match self.index_mismatch(boundaries) {
            Ok(detail) => MemberVerdict::new("index.txt", MemberStatus::Ok, detail),
            Err(why) => MemberVerdict::new("index.txt", MemberStatus::Note, why),
        };
        self.structure.push(verdict);
    }

    fn index_mismatch(&self, boundaries: &[Frame]) -> Result<String, String> {
        let Some(i) = self.index else {
            return Err("missing: a compressed archive is read from the start".into());
        };
        let text = match self.read_text(i) {
            Ok(text) => text,
            Err(Fault::Damaged(why) | Fault::Retry(why)) => {
                return Err(format!("damaged ({why}): not used"));
            }
            Err(Fault::Fail(e)) => return Err(format!("{e}: not used")),
        };
        let index = Index::parse(&text).map_err(|e| format!("damaged ({e}): not used"))?;
        if !index.describes(self.compression) {
            return Err(format!(
                "written for {} data, this file is {}: not used",
                index.compression,
                self.compression.name()
            ));
        }
        let stale =
            |why: String| format!("stale ({why}; the archive was changed after packing): not used");
        let m = &self.members[i];
        let body_u = m.data + m.size + members::padding(m.size) as u64;
        let after: Vec<&Member> = self.members.iter().filter(|x| x.header >= body_u).collect();
        for (k, listed) in index.members.iter().enumerate() {
            let found = after.get(k);
            if found.is_none_or(|f| {
                (f.name.as_str(), f.header - body_u, f.size)
                    != (listed.name.as_str(), listed.header, listed.size)
            }) {
                return Err(stale(format!(
                    "it lists {} at byte {}, the archive has {}",
                    listed.name,
                    listed.header + body_u,
                    found.map_or("nothing there".into(), |f| format!(
                        "{} at byte {}",
                        f.name, f.header
                    ))
                )));
            }
        }
        if after.len() != index.members.len() {
            return Err(stale(format!(
                "it lists {} members after it, the archive has {}",
                index.members.len(),
                after.len()
            )));
        }
        let body_c = match self.compression {
            Compression::None => body_u,
            _ => boundaries
                .iter()
                .find(|b| b.uncompressed == body_u)
                .map(|b| b.compressed)
                .ok_or_else(|| stale("no compressed stream starts after it".into()))?,
        };
        for f in &index.frames {
            let real = Frame {
                uncompressed: f.uncompressed + body_u,
                compressed: f.compressed + body_c,
            };
            let exists = match self.compression {
                Compression::None => real.compressed == real.uncompressed,
                _ => boundaries
                    .binary_search_by_key(&real.uncompressed, |b| b.uncompressed)
                    .is_ok_and(|k| boundaries[k] == real),
            };
            if !exists {
                return Err(stale(format!(
                    "no frame starts at byte {} (compressed {})",
                    real.uncompressed, real.compressed
                )));
            }
        }
        Ok(format!(
            "{} members and {} frames where it says",
            index.members.len(),
            index.frames.len()
        ))
    }

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

    fn fault_error(&self, f: Fault) -> ArchiveError {
        match f {
            Fault::Damaged(d) | Fault::Retry(d) => d.into_error(&self.path),
            Fault::Fail(e) => e,
        }
    }

    /// The data of member `i` from byte `offset` of it on. Read through
    /// `index.txt`, the member's header is checked first.
    fn member_reader(&self, i: usize, offset: u64) -> Result<Box<dyn Read + Send>, MemberProblem> {
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
    fn read_fault(&self, i: usize, problem: impl Into<MemberProblem>) -> Fault {
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

    fn read_text(&self, i: usize) -> Result<String, Fault> {
        String::from_utf8(self.read_capped(i)?).map_err(|_| {
            Fault::Damaged(self.damage(i, TextError::whole(super::text::Expected::Utf8)))
        })
    }

    /// Reads a member that may be absent: `Ok(None)` if it is; a damaged
    /// one is `Some(Err(what is wrong))`.
    fn stored_text(&self, i: Option<usize>) -> Result<Option<Result<String, String>>, Fault> {
        let Some(i) = i else { return Ok(None) };
        match self.read_text(i) {
            Ok(text) => Ok(Some(Ok(text))),
            Err(Fault::Damaged(why)) => Ok(Some(Err(why.to_string()))),
            Err(other) => Err(other),
        }
    }

    /// Runs `f`; if reading through `index.txt` failed, reads the whole
    /// archive and runs it again.
    fn retrying<T>(&mut self, f: impl Fn(&Archive) -> Result<T, Fault>) -> Result<T, ArchiveError> {
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
                    MemberVerdict::new(
                        "index.txt",
                        MemberStatus::Note,
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

    fn map(&self, n: u32) -> Result<&MapMembers, ArchiveError> {
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
    fn analyse_map(
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
    fn recording(&self, n: u32) -> Result<usize, Fault> {
        self.map(n)?.recording.ok_or_else(|| {
            Fault::Fail(ArchiveError::MissingRecording {
                path: self.path.clone(),
                map: n,
            })
        })
    }

    /// A recording (member `rec`) that cannot be read, or whose header does
    /// not decode.
    fn bad_recording(&self, rec: usize, e: ReadError) -> Fault {
        match e {
            ReadError::Io(e) => self.read_fault(rec, e),
            ReadError::Decode(error) => Fault::Fail(ArchiveError::Recording {
                path: self.path.clone(),
                member: Some(self.members[rec].name.clone()),
                error,
            }),
        }
    }

    /// The top-level info as stored, or rebuilt from the first recording.
    fn top_info(&self) -> Result<(TopInfo, Option<String>), Fault> {
        let why = match self.stored_text(self.top)? {
            Some(Ok(text)) => match TopInfo::parse(&text) {
                Ok(info) => return Ok((info, None)),
                Err(e) => format!("damaged ({e})"),
            },
            Some(Err(e)) => format!("damaged ({e})"),
            None => "missing".into(),
        };
        let first = self
            .maps
            .iter()
            .find_map(|(&n, mm)| mm.recording.map(|r| (n, r)));
        let header = match first {
            Some((_, rec)) => {
                let mut r = self
                    .member_reader(rec, 0)
                    .map_err(|e| self.read_fault(rec, e))?;
                read_header(&mut r).map(|(h, _)| h.info).unwrap_or_default()
            }
            None => HeaderInfo::default(),
        };
        let info = TopInfo {
            version: text::ARCHIVE_VERSION,
            name: header.server_name.unwrap_or_default(),
            author: header.server_version.unwrap_or_default(),
            date: header.start_time.unwrap_or_default(),
            maps: self.maps.len() as u32,
            every: DEFAULT_EVERY,
        };
        let note = format!(
            "info.txt {why}: rebuilt from the first recording (name and author are its server's, the checkpoint spacing the default)"
        );
        Ok((info, Some(note)))
    }

    /// What `info` shows; members that are missing or damaged are rebuilt
    /// from the recordings (and said so).
    pub fn summary(&mut self) -> Result<Summary, ArchiveError> {
        self.retrying(Archive::summary_once)
    }

    fn summary_once(&self) -> Result<Summary, Fault> {
        let (top, note) = self.top_info()?;
        let mut notes: Vec<String> = self
            .structure
            .iter()
            .filter(|v| v.status != MemberStatus::Ok)
            .map(|v| format!("{}: {}", v.member, v.detail))
            .collect();
        notes.extend(note);
        let mut maps = Vec::new();
        for (&n, mm) in &self.maps {
            let stored = match self.stored_text(mm.info)? {
                Some(Ok(text)) => parse_map_info(&text).map_err(|e| format!("damaged ({e})")),
                Some(Err(e)) => Err(format!("damaged ({e})")),
                None => Err("missing".into()),
            };
            let summary: MapSummary = match stored {
                Ok(s) => s,
                Err(why) => {
                    // The summary needs no checkpoints.
                    let (_, a) = self.analyse_map(n, Plan::At(&[]), false, |_| {})?;
                    notes.push(format!("{n}/info.txt {why}: rebuilt from {n}/demodata.bin"));
                    MapSummary::of(&a)
                }
            };
            let checkpoints = match self.stored_text(mm.toc)? {
                Some(Ok(text)) if parse_toc(&text).is_ok() => {
                    parse_toc(&text).map_or(0, |e| e.len())
                }
                _ => {
                    notes.push(format!(
                        "{n}/toc.txt missing or damaged: counting the checkpoint members"
                    ));
                    mm.saves.len()
                }
            };
            maps.push(MapLine {
                map: n,
                map_name: summary.map_name,
                ticks: summary.ticks,
                checkpoints,
                recording_bytes: mm.recording.map(|i| self.members[i].size),
                game_uuid: summary.game_uuid,
                prev_game_uuid: summary.prev_game_uuid,
            });
        }
        Ok(Summary {
            compression: self.compression,
            bytes: self.bytes,
            indexed: self.indexed(),
            top,
            maps,
            members: self
                .members()
                .map(|(name, size)| MemberLine {
                    name: name.to_string(),
                    size,
                })
                .collect(),
            notes,
        })
    }

    /// Map `n`'s `log.txt`, rebuilt from the recording if it is missing or
    /// not shaped like a log (the note says so).
    pub fn log(&mut self, n: u32) -> Result<(String, Option<String>), ArchiveError> {
        self.retrying(|a| a.log_once(n))
    }

    fn log_once(&self, n: u32) -> Result<(String, Option<String>), Fault> {
        let mm = self.map(n)?;
        let why = match self.stored_text(mm.log)? {
            Some(Ok(text)) => match log::check(&text) {
                Ok(()) => return Ok((text, None)),
                Err(e) => format!("damaged ({e})"),
            },
            Some(Err(e)) => format!("damaged ({e})"),
            None => "missing".into(),
        };
        let (_, a) = self.analyse_map(n, Plan::At(&[]), false, |_| {})?;
        Ok((
            a.log,
            Some(format!("{n}/log.txt {why}: rebuilt from {n}/demodata.bin")),
        ))
    }

    /// The world of map `n` at tick `tick`: the nearest checkpoint at or
    /// before it, then the recording's bytes after the checkpoint's offset.
    /// Checkpoints that are missing, damaged or disagree with `toc.txt`
    /// are passed over (the notes say so); without `toc.txt` the replay
    /// starts at the beginning.
    pub fn seek(&mut self, n: u32, tick: i32) -> Result<SeekResult, ArchiveError> {
        self.retrying(|a| a.seek_once(n, tick))
    }

    fn seek_once(&self, n: u32, tick: i32) -> Result<SeekResult, Fault> {
        let mm = self.map(n)?;
        let rec = self.recording(n)?;
        if tick < 0 {
            return Err(Fault::Fail(ArchiveError::TickBeforeStart { tick }));
        }
        let size = self.members[rec].size;
        let mut notes = Vec::new();
        let entries = match self.stored_text(mm.toc)? {
            Some(Ok(text)) => parse_toc(&text).unwrap_or_else(|e| {
                notes.push(format!(
                    "{n}/toc.txt is damaged ({e}): replaying from the start"
                ));
                Vec::new()
            }),
            Some(Err(e)) => {
                notes.push(format!(
                    "{n}/toc.txt is damaged ({e}): replaying from the start"
                ));
                Vec::new()
            }
            None => {
                notes.push(format!("{n}/toc.txt is missing: replaying from the start"));
                Vec::new()
            }
        };
        let mut start = None;
        for e in entries.iter().rev().filter(|e| e.tick <= tick) {
            let name = Slot::Map(n, MapMember::Save(e.save)).to_string();
            let Some(&i) = mm.saves.get(&e.save) else {
                notes.push(format!("{name} is missing: not used"));
                continue;
            };
            let limit = max_save_size(e.offset);
            let save = if self.members[i].size > limit {
                Err(format!(
                    "{} bytes, more than a checkpoint at byte {} can be ({limit})",
                    self.members[i].size, e.offset
                ))
            } else {
                match self.read_text(i) {
                    Ok(text) => SaveFile::parse(&text).map_err(|e| e.to_string()),
                    Err(Fault::Damaged(why)) => Err(why.to_string()),
                    Err(other) => return Err(other),
                }
            };
            match save {
                Ok(s)
                    if s.offset == e.offset
                        && s.checkpoint.clock.tick() == e.tick
                        && s.offset < size =>
                {
                    // The checkpoint's history: history.ron, cut to its
                    // lengths. Without it no checkpoint is usable.
                    let history = match self.stored_text(mm.history)? {
                        Some(Ok(text)) => {
                            parse_history(&text).map_err(|e| format!("damaged ({e})"))
                        }
                        Some(Err(e)) => Err(format!("damaged ({e})")),
                        None => Err("missing".into()),
                    };
                    let cut = history.map(|h| {
                        h.prefix(s.history).ok_or_else(|| {
                        format!(
                            "shorter than {name} says ({} saves, {} swaps, {} console commands)",
                            s.history.saves, s.history.swaps, s.history.console
                        )
                    })
                    });
                    match cut {
                        Ok(Ok(history)) => {
                            let mut s = s;
                            s.checkpoint.world.set_history(history);
                            start = Some((name, *e, s));
                        }
                        Ok(Err(why)) | Err(why) => notes.push(format!(
                            "{n}/history.ron is {why}: no checkpoint used, replaying from the start"
                        )),
                    }
                    break;
                }
                Ok(s) => notes.push(format!(
                    "{name} holds tick {} at byte {}, toc.txt says tick {} at byte {}: not used",
                    s.checkpoint.clock.tick(),
                    s.offset,
                    e.tick,
                    e.offset
                )),
                Err(why) => notes.push(format!("{name} is damaged ({why}): not used")),
            }
        }
        let bad_recording = |e| self.bad_recording(rec, e);
        let (_, head) = {
            let mut r = self
                .member_reader(rec, 0)
                .map_err(|e| self.read_fault(rec, e))?;
            read_header(&mut r).map_err(bad_recording)?
        };
        let header_len = head.len() as u64;
        let (mut replay, resume_at, from) = match start {
            Some((member, e, save)) if e.offset >= header_len => (
                Replay::resume(save.checkpoint),
                e.offset,
                Some(Resumed {
                    member,
                    tick: e.tick,
                    offset: e.offset,
                }),
            ),
            _ => (Replay::new(ReplayConfig::default()), header_len, None),
        };
        // Nothing past the next checkpoint after `tick` is needed: the record
        // there belongs to a later tick. Stopping there keeps a seek to one
        // interval's bytes (and one compressed frame).
        let bound = entries
            .iter()
            .find(|e| e.tick > tick && e.offset > resume_at)
            .map_or(size, |e| e.offset.min(size));
        let tail = self
            .member_reader(rec, resume_at)
            .map_err(|e| self.read_fault(rec, e))?
            .take(bound - resume_at);
        // The stream reader needs a header: the recording's own, then the
        // bytes from the checkpoint on, with offsets shifted back.
        let src = Cursor::new(head).chain(tail);
        let (_, mut reader) = StreamReader::new(src, Mode::Lenient).map_err(bad_recording)?;
        let mut reached = replay_until(&mut reader, resume_at - header_len, &mut replay, tick)
            .map_err(bad_recording)?;
        reached.past |= bound < size;
        notes.extend(
            reached
                .inconsistencies
                .iter()
                .map(|i| format!("replay: {i}")),
        );
        if reached.inconsistency_count > reached.inconsistencies.len() as u64 {
            notes.push(format!(
                "{} more inconsistencies",
                reached.inconsistency_count - reached.inconsistencies.len() as u64
            ));
        }
        let world = finish_world(&replay, &reached, tick).ok_or_else(|| {
            Fault::Fail(ArchiveError::TickAfterEnd {
                path: self.path.clone(),
                map: n,
                tick,
                last_tick: reached.last_tick,
            })
        })?;
        Ok(SeekResult {
            world,
            from,
            records: reached.records,
            notes,
        })
    }

    /// The world of map `n` at tick `tick` by replaying its recording from
    /// the start, ignoring every checkpoint: what [`Archive::seek`] must
    /// equal (slow: the whole recording up to `tick`).
    pub fn replay_from_start(&mut self, n: u32, tick: i32) -> Result<World, ArchiveError> {
        self.retrying(|a| {
            let rec = a.recording(n)?;
            let r = a.member_reader(rec, 0).map_err(|e| a.read_fault(rec, e))?;
            let bad_recording = |e| a.bad_recording(rec, e);
            let src = BufReader::with_capacity(1 << 16, r);
            let (_, mut reader) = StreamReader::new(src, Mode::Lenient).map_err(bad_recording)?;
            let mut replay = Replay::new(ReplayConfig::default());
            let reached = replay_until(&mut reader, 0, &mut replay, tick).map_err(bad_recording)?;
            finish_world(&replay, &reached, tick).ok_or_else(|| {
                Fault::Fail(ArchiveError::TickAfterEnd {
                    path: a.path.clone(),
                    map: n,
                    tick,
                    last_tick: reached.last_tick,
                })
            })
        })
    }

    /// Checks every member against the recordings: each recording decodes,
    /// re-encodes byte-exactly and replays cleanly; `info.txt` and
    /// `log.txt` are what the recording says; every checkpoint listed in
    /// `toc.txt` equals the replay at its offset. What is missing is
    /// rebuilt, what is wrong is reported (and rebuilt for [`unpack`]).
    ///
    /// [`unpack`]: Archive::unpack
    pub fn verify(&self) -> Report {
        self.verify_with(&mut |_| {})
    }

    /// [`Archive::verify`], telling `progress` how far it is (bytes of
    /// recordings read).
    pub fn verify_with(&self, progress: &mut dyn FnMut(Progress)) -> Report {
        let total = self
            .maps
            .values()
            .filter_map(|mm| mm.recording)
            .map(|i| self.members[i].size)
            .sum();
        let mut done = 0;
        let mut on_read = |n| {
            done += n;
            progress(Progress { done, total });
        };
        let mut verdicts = self.structure.clone();
        let (top, note) = match self.top_info() {
            Ok(t) => t,
            Err(f) => {
                let why = match f {
                    Fault::Damaged(w) | Fault::Retry(w) => format!("{}: {w}", w.member),
                    Fault::Fail(e) => e.to_string(),
                };
                verdicts.push(MemberVerdict::new("archive", MemberStatus::Failed, why));
                (
                    TopInfo {
                        version: text::ARCHIVE_VERSION,
                        name: String::new(),
                        author: String::new(),
                        date: String::new(),
                        maps: self.maps.len() as u32,
                        every: DEFAULT_EVERY,
                    },
                    None,
                )
            }
        };
        let folders = self.maps.len() as u32;
        let top_verdict = match (note, self.top.is_some()) {
            (None, _) if top.maps != folders => MemberVerdict::new(
                "info.txt",
                MemberStatus::Failed,
                format!(
                    "says {} maps, the archive has {folders} map folders",
                    top.maps
                ),
            ),
            (None, _) => MemberVerdict::new(
                "info.txt",
                MemberStatus::Ok,
                format!("version {}, {} maps", top.version, top.maps),
            ),
            (Some(note), false) => MemberVerdict::new("info.txt", MemberStatus::Rebuilt, note),
            (Some(note), true) => MemberVerdict::new("info.txt", MemberStatus::Failed, note),
        };
        // A sound info.txt is kept as stored (fields a later version added
        // included); otherwise it is rendered with the folders found.
        let top_text = match (top_verdict.status, self.stored_text(self.top)) {
            (MemberStatus::Ok, Ok(Some(Ok(text)))) => text,
            _ => TopInfo {
                maps: folders,
                ..top.clone()
            }
            .render(),
        };
        verdicts.push(top_verdict);
        if top.every < MIN_EVERY {
            verdicts.push(MemberVerdict::new(
                "info.txt",
                MemberStatus::Note,
                format!(
                    "checkpoint_every: {} ticks is less than a second: checkpoints are rebuilt {MIN_EVERY} ticks apart",
                    top.every
                ),
            ));
        }
        // Folders are numbered 1, 2, ...: the first number not there, by
        // walking the folders (a name like 4000000000/ costs nothing).
        let gap = (1..)
            .zip(self.maps.keys())
            .find(|&(expected, &n)| n != expected)
            .map(|(expected, _)| expected);
        if let Some(gap) = gap {
            verdicts.push(MemberVerdict::new(
                format!("{gap}/"),
                MemberStatus::Failed,
                "map folder missing",
            ));
        }
        let mut maps = Vec::new();
        let mut previous_game: Option<String> = None;
        for &n in self.maps.keys() {
            let (mut v, report, game) =
                self.verify_map(n, top.every, previous_game.as_deref(), &mut on_read);
            verdicts.append(&mut v);
            maps.extend(report);
            previous_game = game;
        }
        Report {
            compression: self.compression,
            bytes: self.bytes,
            verdicts,
            maps,
            top_text,
        }
    }

    /// Verifies one map folder; returns its verdicts, its report (unless
    /// the recording is missing) and its game uuid.
    fn verify_map(
        &self,
        n: u32,
        every: i32,
        previous_game: Option<&str>,
        on_read: &mut dyn FnMut(u64),
    ) -> (Vec<MemberVerdict>, Option<MapReport>, Option<String>) {
        let mm = &self.maps[&n];
        let name = |m: MapMember| Slot::Map(n, m).to_string();
        let mut v = Vec::new();
        let Some(rec) = mm.recording else {
            v.push(MemberVerdict::new(
                name(MapMember::Recording),
                MemberStatus::Failed,
                "missing: the recording is the one member that cannot be rebuilt",
            ));
            return (v, None, None);
        };
        let text_of = |i: Option<usize>| match self.stored_text(i) {
            Ok(t) => t,
            Err(Fault::Damaged(why) | Fault::Retry(why)) => Some(Err(why.to_string())),
            Err(Fault::Fail(e)) => Some(Err(e.to_string())),
        };
        // The checkpoints the archive claims: toc.txt, or else the saves'
        // own offsets.
        let toc_raw = text_of(mm.toc);
        let stored_toc = toc_raw
            .clone()
            .map(|t| t.and_then(|t| parse_toc(&t).map_err(|e| e.to_string())));
        // Saves are read one at a time, and not at all when larger than
        // any checkpoint of this recording can be.
        let recording_size = self.members[rec].size;
        let load_save = |k: u32, at: u64| -> Option<(Result<SaveFile, String>, String)> {
            let i = *mm.saves.get(&k)?;
            let limit = max_save_size(at);
            let size = self.members[i].size;
            if size > limit {
                let why =
                    format!("{size} bytes, more than a checkpoint at byte {at} can be ({limit})");
                return Some((Err(why), String::new()));
            }
            let raw = text_of(Some(i)).unwrap_or(Err(String::new()));
            match raw {
                Ok(text) => Some((SaveFile::parse(&text).map_err(|e| e.to_string()), text)),
                Err(why) => Some((Err(why), String::new())),
            }
        };
        let mut damaged_saves = Vec::new();
        let listed: Vec<TocEntry> = match &stored_toc {
            Some(Ok(entries)) => entries.clone(),
            _ => {
                let mut from_saves = Vec::new();
                for &k in mm.saves.keys() {
                    match load_save(k, recording_size) {
                        Some((Ok(s), _)) => from_saves.push(TocEntry {
                            save: k,
                            tick: s.checkpoint.clock.tick(),
                            offset: s.offset,
                        }),
                        Some((Err(why), _)) => damaged_saves.push((k, why)),
                        None => {}
                    }
                }
                from_saves.sort_by_key(|e| (e.offset, e.save));
                from_saves.dedup_by_key(|e| e.offset);
                from_saves
            }
        };
        let offsets: Vec<u64> = listed.iter().map(|e| e.offset).collect();
        let plan = if listed.is_empty() {
            Plan::Every(every)
        } else {
            Plan::At(&offsets)
        };
        let a = match self.analyse_map(n, plan, true, on_read) {
            Ok((_, a)) => a,
            Err(f) => {
                let why = match f {
                    Fault::Damaged(w) | Fault::Retry(w) => w.to_string(),
                    Fault::Fail(e) => e.to_string(),
                };
                v.push(MemberVerdict::new(
                    name(MapMember::Recording),
                    MemberStatus::Failed,
                    why,
                ));
                return (v, None, None);
            }
        };
        let size = self.members[rec].size;
        let game = a.header.info.game_uuid.clone();
        let continues = match (&a.header.info.prev_game_uuid, previous_game) {
            (Some(p), Some(q)) if p == q => format!(", continues map {}", n - 1),
            _ => String::new(),
        };
        // The recording's verdict is what the teehistorian pipeline found.
        let findings = a.scan.findings();
        let problems: Vec<String> = a.problems().map(|f| f.message).collect();
        let mut recording = if a.scan.bytes < size || self.members[rec].truncated {
            MemberVerdict::new(
                name(MapMember::Recording),
                MemberStatus::Failed,
                format!(
                    "the archive ends after {} of its {size} bytes",
                    a.scan.bytes
                ),
            )
        } else if !problems.is_empty() {
            MemberVerdict::new(
                name(MapMember::Recording),
                MemberStatus::Failed,
                problems.join("; "),
            )
        } else {
            let end = a.scan.end.map_or(String::new(), |e| e.to_string());
            let status = match a.scan.end {
                Some(End::Truncated { .. }) => MemberStatus::Warn,
                _ => MemberStatus::Ok,
            };
            MemberVerdict::new(
                name(MapMember::Recording),
                status,
                format!(
                    "{} bytes, {} records, last tick {}, byte-exact, replays cleanly, {end}{continues}",
                    a.scan.bytes, a.scan.records, a.scan.last_tick
                ),
            )
        };
        recording.findings = findings;
        let (info_verdict, info_text) =
            compare_text(&name(MapMember::Info), text_of(mm.info), map_info(&a), n);
        let (log_verdict, log_text) =
            compare_text(&name(MapMember::Log), text_of(mm.log), a.log.clone(), n);
        let (history_verdict, history_text) = compare_text(
            &name(MapMember::History),
            text_of(mm.history),
            render_history(&a.history),
            n,
        );
        // Checkpoints: their verdicts (`sv`) come after the others, in the
        // archive's order.
        let mut sv = Vec::new();
        let mut agree = 0;
        let mut toc_faults = Vec::new();
        let mut entries = Vec::new();
        let mut saves = Vec::new();
        if listed.is_empty() {
            for (k, t) in a.taken.iter().enumerate() {
                let save = k as u32 + 1;
                entries.push(TocEntry {
                    save,
                    tick: t.tick(),
                    offset: t.offset,
                });
                saves.push((save, SaveFile::of(t).render().into_bytes()));
                sv.push(MemberVerdict::new(
                    name(MapMember::Save(save)),
                    MemberStatus::Rebuilt,
                    format!(
                        "missing: rebuilt from {n}/demodata.bin (tick {}, byte {})",
                        t.tick(),
                        t.offset
                    ),
                ));
            }
            for (k, why) in &damaged_saves {
                sv.push(MemberVerdict::new(
                    name(MapMember::Save(*k)),
                    MemberStatus::Failed,
                    format!("damaged ({why}): not used"),
                ));
            }
        } else {
            for e in &listed {
                let member = name(MapMember::Save(e.save));
                if let Some(why) = a
                    .missed
                    .iter()
                    .find(|m| m.offset == e.offset)
                    .map(|m| m.why)
                {
                    toc_faults.push(format!("save{}.ron at byte {}: {why}", e.save, e.offset));
                    if mm.saves.contains_key(&e.save) {
                        sv.push(MemberVerdict::new(
                            &member,
                            MemberStatus::Failed,
                            format!("byte {} is {why}: not used", e.offset),
                        ));
                    }
                    continue;
                }
                let Some(t) = a.taken.iter().find(|t| t.offset == e.offset) else {
                    continue;
                };
                if e.tick != t.tick() {
                    toc_faults.push(format!(
                        "save{}.ron: tick {} at byte {}, but the replay is at tick {} there",
                        e.save,
                        e.tick,
                        e.offset,
                        t.tick()
                    ));
                }
                let expected = SaveFile::of(t);
                let rendered = expected.render();
                let detail = format!("tick {}, byte {}", t.tick(), t.offset);
                let stored = load_save(e.save, t.offset);
                let (verdict, bytes) = match stored {
                    None => (
                        MemberVerdict::new(
                            &member,
                            MemberStatus::Rebuilt,
                            format!("missing: rebuilt from {n}/demodata.bin ({detail})"),
                        ),
                        rendered.into_bytes(),
                    ),
                    Some((Ok(s), raw)) if s == expected => {
                        agree += 1;
                        (
                            MemberVerdict::new(
                                &member,
                                MemberStatus::Ok,
                                format!("agrees with the replay ({detail})"),
                            ),
                            raw.into_bytes(),
                        )
                    }
                    Some((Ok(s), _)) => (
                        MemberVerdict::new(
                            &member,
                            MemberStatus::Failed,
                            format!(
                                "disagrees with the replay of {n}/demodata.bin ({detail}): {}; rebuilt",
                                first_difference(&s, &expected)
                            ),
                        ),
                        rendered.into_bytes(),
                    ),
                    Some((Err(why), _)) => (
                        MemberVerdict::new(
                            &member,
                            MemberStatus::Failed,
                            format!("damaged ({why}): rebuilt ({detail})"),
                        ),
                        rendered.into_bytes(),
                    ),
                };
                sv.push(verdict);
                entries.push(TocEntry {
                    save: e.save,
                    tick: t.tick(),
                    offset: t.offset,
                });
                saves.push((e.save, bytes));
            }
            for k in mm
                .saves
                .keys()
                .filter(|k| !listed.iter().any(|e| e.save == **k))
            {
                let why = match &stored_toc {
                    Some(Ok(_)) => "not listed in toc.txt: ignored",
                    _ => "at the same byte as another checkpoint: ignored",
                };
                sv.push(MemberVerdict::new(
                    name(MapMember::Save(*k)),
                    MemberStatus::Note,
                    why,
                ));
            }
        }
        let toc_text = render_toc(&entries);
        let toc_verdict = match (&stored_toc, toc_faults.is_empty()) {
            (None, _) => {
                let from = if listed.is_empty() {
                    format!("{n}/demodata.bin")
                } else {
                    "the checkpoints".into()
                };
                MemberVerdict::new(
                    name(MapMember::Toc),
                    MemberStatus::Rebuilt,
                    format!("missing: rebuilt from {from}"),
                )
            }
            (Some(Err(why)), _) => MemberVerdict::new(
                name(MapMember::Toc),
                MemberStatus::Failed,
                format!("damaged ({why}): rebuilt"),
            ),
            (Some(Ok(_)), false) => MemberVerdict::new(
                name(MapMember::Toc),
                MemberStatus::Failed,
                format!("{}; rebuilt", toc_faults.join("; ")),
            ),
            (Some(Ok(e)), true) => MemberVerdict::new(
                name(MapMember::Toc),
                MemberStatus::Ok,
                format!("{} checkpoints", e.len()),
            ),
        };
        v.extend([
            info_verdict,
            toc_verdict,
            log_verdict,
            recording,
            history_verdict,
        ]);
        v.append(&mut sv);
        let toc_bytes = match (toc_raw, &stored_toc, toc_faults.is_empty()) {
            (Some(Ok(stored)), Some(Ok(_)), true) => stored.into_bytes(),
            _ => toc_text.into_bytes(),
        };
        let mut resolved = vec![
            (MapMember::Info.to_string(), info_text.into_bytes()),
            (MapMember::Toc.to_string(), toc_bytes),
            (MapMember::Log.to_string(), log_text.into_bytes()),
            (MapMember::History.to_string(), history_text.into_bytes()),
        ];
        for (k, bytes) in saves {
            resolved.push((MapMember::Save(k).to_string(), bytes));
        }
        let report = MapReport {
            map: n,
            map_name: a.header.info.map_name.clone(),
            records: a.scan.records,
            last_tick: a.scan.last_tick,
            end: a.scan.end,
            checkpoints_agree: agree,
            resolved,
            recording: Some(rec),
        };
        (v, Some(report), game)
    }

    /// Writes the archive's files under `dir` (which must be empty or
    /// absent): the top `info.txt`, and per map folder `info.txt`,
    /// `toc.txt`, `log.txt`, `demodata.bin` and the checkpoints, each as
    /// [`verify`](Archive::verify) resolves it (rebuilt where missing or
    /// wrong). `index.txt` describes the packed file only and is left out.
    pub fn unpack(&self, dir: &Path) -> Result<Report, ArchiveError> {
        let failed = |p: &Path, e: io::Error| ArchiveError::io(p, e);
        if dir.exists() {
            let mut entries = fs::read_dir(dir).map_err(|e| failed(dir, e))?;
            if entries.next().is_some() {
                return Err(ArchiveError::NotEmpty {
                    dir: dir.to_path_buf(),
                });
            }
        }
        let report = self.verify();
        fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
        let write = |p: PathBuf, bytes: &[u8]| fs::write(&p, bytes).map_err(|e| failed(&p, e));
        write(dir.join("info.txt"), report.top_text.as_bytes())?;
        for map in &report.maps {
            let folder = dir.join(map.map.to_string());
            fs::create_dir_all(&folder).map_err(|e| failed(&folder, e))?;
            for (name, bytes) in &map.resolved {
                write(folder.join(name), bytes)?;
            }
            if let Some(rec) = map.recording {
                let path = folder.join("demodata.bin");
                let file = File::create(&path).map_err(|e| failed(&path, e))?;
                let mut out = BufWriter::new(file);
                let mut r = self
                    .member_reader(rec, 0)
                    .map_err(|problem| ArchiveError::Member {
                        path: self.path.clone(),
                        member: self.members[rec].name.clone(),
                        problem,
                    })?;
                io::copy(&mut r, &mut out).map_err(|e| failed(&path, e))?;
                out.flush().map_err(|e| failed(&path, e))?;
            }
        }
        Ok(report)
    }
}

/// A stored text member against what the recording says: its verdict and
/// the text to use.
fn compare_text(
    member: &str,
    stored: Option<Result<String, String>>,
    canonical: String,
    n: u32,
) -> (MemberVerdict, String) {
    match stored {
        None => (
            MemberVerdict::new(
                member,
                MemberStatus::Rebuilt,
                format!("missing: rebuilt from {n}/demodata.bin"),
            ),
            canonical,
        ),
        Some(Err(why)) => (
            MemberVerdict::new(
                member,
                MemberStatus::Failed,
                format!("damaged ({why}): rebuilt from {n}/demodata.bin"),
            ),
            canonical,
        ),
        Some(Ok(text)) if text == canonical => {
            let lines = text.lines().filter(|l| !l.starts_with('#')).count();
            (
                MemberVerdict::new(
                    member,
                    MemberStatus::Ok,
                    format!("{lines} lines, as the recording says"),
                ),
                text,
            )
        }
        Some(Ok(text)) => {
            let (line, (a, b)) = text
                .lines()
                .map(Some)
                .chain(std::iter::repeat(None))
                .zip(canonical.lines().map(Some).chain(std::iter::repeat(None)))
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((0, (None, None)));
            let show = |l: Option<&str>| l.map_or("nothing".to_string(), |l| format!("{l:?}"));
            (
                MemberVerdict::new(
                    member,
                    MemberStatus::Failed,
                    format!(
                        "differs from what {n}/demodata.bin says at line {}: {} instead of {}; rebuilt",
                        line + 1,
                        show(a),
                        show(b)
                    ),
                ),
                canonical,
            )
        }
    }
}

/// Where two checkpoints first differ, as a path and both values.
/// The largest `save<k>.ron` a checkpoint at byte `at` of a recording can
/// be. A pass takes a checkpoint only where the records before it outweigh
/// its [`weight`](crate::teehistorian::Replay::weight), and a checkpoint's
/// RON is about four times its weight: 16 times, plus a MiB for small
/// recordings, is never reached by one this crate wrote.
fn max_save_size(at: u64) -> u64 {
    at.saturating_mul(16).saturating_add(1 << 20)
}

fn first_difference(stored: &SaveFile, expected: &SaveFile) -> String {
    use crate::json_diff::{Arrays, first_difference};
    let (a, b) = (
        serde_json::to_value(stored).unwrap_or_default(),
        serde_json::to_value(expected).unwrap_or_default(),
    );
    match first_difference(&a, &b, Arrays::ByElement) {
        Some((path, x, y)) => {
            let shown = |v: &serde_json::Value| match v {
                serde_json::Value::Null => "nothing".to_string(),
                v => v.to_string(),
            };
            format!("{path} is {} where the replay has {}", shown(x), shown(y))
        }
        None => "they differ".into(),
    }
}
