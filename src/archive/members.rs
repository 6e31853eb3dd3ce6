//! Tar members: the names of an archive's members, the fixed header
//! teeoracle writes for each, and the catalogue of an existing tar file.

use super::{MemberProblem, TarFault};
use std::fmt;
use std::fs::File;
use std::io::{self, Write};

/// Tar block size.
pub const BLOCK: u64 = 512;

/// Permission bits, owner, group and time of every member teeoracle
/// writes: constants, never the file system's or the clock's, so the same
/// recordings always give the same archive bytes.
pub const MODE: u32 = 0o644;
/// The owner and group of every member (root).
pub const OWNER: u64 = 0;
/// The modification time of every member (the epoch).
pub const MTIME: u64 = 0;

/// What a member is, by its place in the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Slot {
    /// `info.txt`: version, name, author, date.
    TopInfo,
    /// `index.txt`: where members and frames start.
    Index,
    /// A member of the folder of map `n` (1-based).
    Map(u32, MapMember),
}

/// The members of a map folder, in the order they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MapMember {
    /// `info.txt`: what the recording says.
    Info,
    /// `toc.txt`: the checkpoints.
    Toc,
    /// `log.txt`: the events.
    Log,
    /// `demodata.bin`: the teehistorian file.
    Recording,
    /// `history.ron`: the recording's history lists, which checkpoints
    /// share.
    History,
    /// `save<k>.ron`, k >= 1.
    Save(u32),
}

impl Slot {
    /// Parses a member name (a leading `./`, as `tar -C dir .` writes, is
    /// ignored). `None` for anything outside the layout.
    pub fn parse(name: &str) -> Option<Slot> {
        let mut name = name;
        while let Some(rest) = name.strip_prefix("./") {
            name = rest;
        }
        match name {
            "info.txt" => return Some(Slot::TopInfo),
            "index.txt" => return Some(Slot::Index),
            _ => {}
        }
        let (folder, file) = name.split_once('/')?;
        let n = positive(folder)?;
        let member = match file {
            "info.txt" => MapMember::Info,
            "toc.txt" => MapMember::Toc,
            "log.txt" => MapMember::Log,
            "demodata.bin" => MapMember::Recording,
            "history.ron" => MapMember::History,
            _ => MapMember::Save(positive(file.strip_prefix("save")?.strip_suffix(".ron")?)?),
        };
        Some(Slot::Map(n, member))
    }
}

impl fmt::Display for Slot {
    /// The member's name in the archive.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::TopInfo => f.write_str("info.txt"),
            Slot::Index => f.write_str("index.txt"),
            Slot::Map(n, m) => write!(f, "{n}/{m}"),
        }
    }
}

impl fmt::Display for MapMember {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapMember::Info => f.write_str("info.txt"),
            MapMember::Toc => f.write_str("toc.txt"),
            MapMember::Log => f.write_str("log.txt"),
            MapMember::Recording => f.write_str("demodata.bin"),
            MapMember::History => f.write_str("history.ron"),
            MapMember::Save(k) => write!(f, "save{k}.ron"),
        }
    }
}

/// A decimal number >= 1 without leading zeros (one spelling per number).
fn positive(s: &str) -> Option<u32> {
    if s.is_empty() || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&n| n >= 1)
}

/// The tar header teeoracle writes for a member: ustar, a regular file,
/// the fixed mode, owner and time, no user or group names.
pub fn header_block(name: &str, size: u64) -> io::Result<[u8; 512]> {
    let mut header = tar::Header::new_ustar();
    header.set_path(name)?;
    header.set_size(size);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_mode(MODE);
    header.set_uid(OWNER);
    header.set_gid(OWNER);
    header.set_mtime(MTIME);
    header.set_cksum();
    Ok(*header.as_bytes())
}

/// Zero bytes that pad a member of `size` bytes to the block size.
pub fn padding(size: u64) -> usize {
    ((BLOCK - size % BLOCK) % BLOCK) as usize
}

/// Writes a whole member: header, data, padding.
pub fn write_member(out: &mut impl Write, name: &str, data: &[u8]) -> io::Result<()> {
    out.write_all(&header_block(name, data.len() as u64)?)?;
    out.write_all(data)?;
    out.write_all(&[0; BLOCK as usize][..padding(data.len() as u64)])
}

/// Writes the end-of-archive marker: two zero blocks.
pub fn write_end(out: &mut impl Write) -> io::Result<()> {
    out.write_all(&[0; 2 * BLOCK as usize])
}

/// The name and size in one of teeoracle's own member headers, checked
/// as a tar reader would (checksum, regular file).
pub fn parse_header(block: &[u8; 512]) -> Result<(String, u64), MemberProblem> {
    if !super::frames::is_tar_header(block) {
        return Err(MemberProblem::NotAHeader);
    }
    let header = tar::Header::from_byte_slice(block);
    let name = String::from_utf8(header.path_bytes().into_owned())
        .map_err(|_| MemberProblem::NameNotUtf8)?;
    let size = header.size().map_err(|_| MemberProblem::BadSize)?;
    Ok((name, size))
}

/// One member of a tar file, by position in the uncompressed tar stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The name as stored.
    pub name: String,
    /// Offset of its (first) header block.
    pub header: u64,
    /// Offset of its first data byte.
    pub data: u64,
    /// Data size as the header says.
    pub size: u64,
    /// The file ends before the data does.
    pub truncated: bool,
}

/// What [`catalogue`] found in a tar file.
#[derive(Clone, Debug, Default)]
pub struct Catalogue {
    /// Regular-file members, in order.
    pub members: Vec<Member>,
    /// Entries that are not files (links, devices), ignored.
    pub ignored: Vec<String>,
    /// Where and why the walk stopped before the end-of-archive marker.
    pub broken: Option<TarFault>,
    /// The members are whole but the two zero blocks that end a tar
    /// stream are not there (cut at a member boundary?).
    pub no_end_marker: bool,
}

/// The members of a plain tar file of `len` bytes. The tar crate reads
/// the headers (GNU and pax extensions included); member data is skipped
/// by seeking, never read.
pub fn catalogue(file: File, len: u64) -> Catalogue {
    use std::io::{Read, Seek, SeekFrom};
    let mut found = Catalogue::default();
    let mut archive = tar::Archive::new(file);
    let entries = match archive.entries_with_seek() {
        Ok(entries) => entries,
        Err(_) => {
            // The tar reader cannot start: not a tar stream.
            found.broken = Some(TarFault::NotTar);
            return found;
        }
    };
    // Where the next header should be, for error messages.
    let mut next = 0u64;
    let mut entries = entries;
    for entry in &mut entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) => {
                found.broken = Some(TarFault::BadHeader { at: next });
                break;
            }
        };
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let (data, size) = (entry.raw_file_position(), entry.size());
        let end = data.saturating_add(size);
        next = end.saturating_add(padding(size) as u64);
        match entry.header().entry_type() {
            tar::EntryType::Regular | tar::EntryType::Continuous => {}
            // Folders and pax global headers carry nothing a reader needs.
            tar::EntryType::Directory | tar::EntryType::XGlobalHeader => continue,
            other => {
                found
                    .ignored
                    .push(format!("{name}: a {other:?} entry, not a file"));
                continue;
            }
        }
        found.members.push(Member {
            name: name.clone(),
            header: entry.raw_header_position(),
            data,
            size,
            truncated: end > len,
        });
        if end > len {
            found.broken = Some(TarFault::CutMember {
                name,
                read: len.saturating_sub(data),
                size,
            });
            break;
        }
    }
    if found.broken.is_none() {
        let mut file = archive.into_inner();
        let mut end = [0u8; 2 * BLOCK as usize];
        found.no_end_marker = file
            .seek(SeekFrom::Start(next))
            .and_then(|_| file.read_exact(&mut end))
            .map_or(true, |()| end.iter().any(|&b| b != 0));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_nothing_else_parses() {
        for slot in [
            Slot::TopInfo,
            Slot::Index,
            Slot::Map(1, MapMember::Info),
            Slot::Map(12, MapMember::Toc),
            Slot::Map(3, MapMember::Log),
            Slot::Map(3, MapMember::Recording),
            Slot::Map(3, MapMember::Save(17)),
        ] {
            assert_eq!(Slot::parse(&slot.to_string()), Some(slot));
        }
        assert_eq!(
            Slot::parse("./1/demodata.bin"),
            Some(Slot::Map(1, MapMember::Recording))
        );
        for name in [
            "0/info.txt",
            "01/info.txt",
            "1/save0.ron",
            "1/save01.ron",
            "1/saveX.ron",
            "1/other.txt",
            "1/2/info.txt",
            "-1/info.txt",
            "info.TXT",
        ] {
            assert_eq!(Slot::parse(name), None, "{name}");
        }
    }

    #[test]
    fn headers_are_fixed_and_parse_back() {
        let block = header_block("2/save3.ron", 1234).unwrap();
        assert_eq!(parse_header(&block).unwrap(), ("2/save3.ron".into(), 1234));
        let h = tar::Header::from_byte_slice(&block);
        assert_eq!(h.mode().unwrap(), MODE);
        assert_eq!(h.mtime().unwrap(), MTIME);
        assert_eq!((h.uid().unwrap(), h.gid().unwrap()), (OWNER, OWNER));
        assert_eq!(padding(1234), 512 - 1234 % 512);
        assert_eq!(padding(1024), 0);
        let mut bad = block;
        bad[100] ^= 1;
        let parsed = parse_header(&bad);
        assert!(parsed.is_err(), "a damaged checksum was read: {parsed:?}");
    }
}
