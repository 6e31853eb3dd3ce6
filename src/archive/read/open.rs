//! Opening an archive: finding its members, through `index.txt` (a
//! bzip2 archive is then read frame by frame) or by reading the whole file
//! once, and checking `index.txt` against what is there.

use super::access::{Fault, Source};
use super::{Archive, MapMembers, MemberCheck, MemberOutcome, OpenOptions};
use crate::archive::frames::{self, Compression, CountingBufRead, Frame};
use crate::archive::members::{self, MapMember, Member, Slot, catalogue, parse_header};
use crate::archive::text::{Expected, Index, TextError};
use crate::archive::{ArchiveError, MAX_TEXT_MEMBER, MemberProblem, NotArchive};
use crate::codec::ReadFault;
use crate::compression::{Decompressed, decompress_to, default_max_decompressed};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use tempfile::NamedTempFile;

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
    let text = String::from_utf8(text).map_err(|_| TextError::whole(Expected::Utf8))?;
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

/// Decompresses a compressed archive (`file`, read from its start) into a
/// temporary file, within `cap` bytes (past it, the error names the member
/// the cap cut); returns the file, its length and what was found.
fn spool(
    path: &Path,
    mut file: File,
    compression: Compression,
    cap: u64,
) -> Result<(NamedTempFile, u64, Decompressed), ArchiveError> {
    let scratch = |e| ArchiveError::io(&std::env::temp_dir(), e);
    file.seek(SeekFrom::Start(0))
        .map_err(|e| ArchiveError::io(path, e))?;
    let mut tmp = NamedTempFile::new().map_err(scratch)?;
    let found = {
        let mut out = BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        let src = BufReader::with_capacity(1 << 16, file);
        let found = decompress_to(src, compression, cap, &mut out);
        let flushed = out.flush();
        found.and_then(|found| flushed.map(|()| found))
    };
    match found {
        Ok(found) => {
            let len = tmp.as_file().metadata().map_err(scratch)?.len();
            Ok((tmp, len, found))
        }
        Err(e) if matches!(ReadFault::of(&e), ReadFault::OverCap { .. }) => {
            // Name the member the cap cut.
            let tar = tmp.reopen().map_err(scratch)?;
            let len = tmp.as_file().metadata().map_err(scratch)?.len();
            let cut = catalogue(tar, len)
                .members
                .into_iter()
                .find(|m| m.data.saturating_add(m.size) > len);
            Err(ArchiveError::OverCap {
                path: path.to_path_buf(),
                member: cut.map(|m| m.name),
                cap,
            })
        }
        Err(e) => Err(scratch(e)),
    }
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
            .unwrap_or_else(|| default_max_decompressed(bytes));
        let over_cap = |member: Option<String>| ArchiveError::OverCap {
            path: path.to_path_buf(),
            member,
            cap,
        };
        let mut head = Vec::with_capacity(512);
        (&mut file).take(512).read_to_end(&mut head).map_err(io)?;
        let compression =
            frames::detect(&head).ok_or_else(|| not_an_archive(NotArchive::UnknownStart))?;
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
                Err(why) => structure.push(MemberCheck::new(
                    "index.txt",
                    MemberOutcome::Note,
                    format!("not usable ({why}): the archive is read from the start"),
                )),
            }
        }
        let (source, tar_len, boundaries) = match compression {
            Compression::None => (Source::Plain(path.to_path_buf()), bytes, Vec::new()),
            _ => {
                let (tmp, len, found) = spool(path, file, compression, cap)?;
                if let Some(why) = found.error {
                    structure.push(MemberCheck::new("archive", MemberOutcome::Failed, why));
                }
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
            structure.push(MemberCheck::new(
                "archive",
                MemberOutcome::Note,
                format!("{note}: ignored"),
            ));
        }
        if let Some(why) = found.broken {
            structure.push(MemberCheck::new(
                "archive",
                MemberOutcome::Failed,
                why.to_string(),
            ));
        } else if found.no_end_marker {
            structure.push(MemberCheck::new(
                "archive",
                MemberOutcome::Warn,
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
        mut structure: Vec<MemberCheck>,
    ) -> Archive {
        let (mut top, mut index, mut maps) = (None, None, BTreeMap::<u32, MapMembers>::new());
        for (i, m) in members.iter().enumerate() {
            let Some(slot) = Slot::parse(&m.name) else {
                structure.push(MemberCheck::new(
                    &m.name,
                    MemberOutcome::Note,
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
                                structure.push(MemberCheck::new(
                                    &m.name,
                                    MemberOutcome::Note,
                                    "stored twice: the last copy is used, as tar extracts it",
                                ));
                            }
                            continue;
                        }
                    }
                }
            };
            if place.replace(i).is_some() {
                structure.push(MemberCheck::new(
                    &m.name,
                    MemberOutcome::Note,
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
            Ok(detail) => MemberCheck::new("index.txt", MemberOutcome::Ok, detail),
            Err(why) => MemberCheck::new("index.txt", MemberOutcome::Note, why),
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
}
