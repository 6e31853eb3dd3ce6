//! Writing an archive: order the recordings, derive every member from
//! them, write the tar stream in frames, rename into place.

use super::frames::{Compression, FrameWriter};
use super::members::{self, MapMember, Slot};
use super::recording::{Analysis, MIN_EVERY, Plan, analyse, read_header};
use super::text::{
    ARCHIVE_VERSION, Index, IndexMember, SaveFile, TocEntry, TopInfo, map_info, render_history,
    render_toc,
};
use super::{ArchiveError, Counted, DEFAULT_EVERY, Progress};
use crate::report::Finding;
use crate::teehistorian::{End, HeaderInfo, ReadError};
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// How to pack.
#[derive(Clone, Debug)]
pub struct PackOptions {
    /// Checkpoint spacing in ticks.
    pub every: i32,
    /// [`Compression::Bzip2`] or [`Compression::None`].
    pub compression: Compression,
    /// The archive's name (default: the first recording's server name).
    pub name: Option<String>,
    /// Its author (default: the first recording's server version).
    pub author: Option<String>,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            every: DEFAULT_EVERY,
            compression: Compression::Bzip2,
            name: None,
            author: None,
        }
    }
}

/// What was packed: the report `archive pack` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Packed {
    /// The archive written.
    pub out: PathBuf,
    /// Its compression.
    pub compression: Compression,
    /// The checkpoint spacing, in ticks.
    pub every: i32,
    /// In archive order (folder 1 first).
    pub maps: Vec<PackedMap>,
    /// Size of the archive file.
    pub bytes: u64,
}

/// One recording as packed.
#[derive(Clone, Debug, Serialize)]
pub struct PackedMap {
    /// The map folder (1 is the first).
    pub map: u32,
    /// The teehistorian file it came from.
    pub input: PathBuf,
    /// The map's name, from the recording's header.
    pub map_name: Option<String>,
    /// The recording's size.
    pub bytes: u64,
    /// Its records.
    pub records: u64,
    /// Its last tick.
    pub last_tick: i32,
    /// Checkpoints written.
    pub checkpoints: usize,
    /// How it ended.
    pub end: Option<End>,
    /// What the teehistorian pipeline found that did not stop the pack (a
    /// truncated recording, replay inconsistencies), as `check` reports it.
    pub findings: Vec<Finding>,
}

/// An input that cannot be read, or does not decode.
fn bad_input(path: &Path, e: ReadError) -> ArchiveError {
    match e {
        ReadError::Io(error) => ArchiveError::io(path, error),
        ReadError::Decode(error) => ArchiveError::Recording {
            path: path.to_path_buf(),
            member: None,
            error,
        },
    }
}

/// Puts recordings in session order: a file whose `prev_game_uuid` is
/// another input's `game_uuid` follows it directly (a map change);
/// otherwise the command-line order holds. Returns input indices.
pub fn session_order(inputs: &[(PathBuf, HeaderInfo)]) -> Result<Vec<usize>, ArchiveError> {
    let uuid = |i: usize| inputs[i].1.game_uuid.as_deref();
    for i in 0..inputs.len() {
        for j in 0..i {
            if let Some(game_uuid) = uuid(i).filter(|&u| Some(u) == uuid(j)) {
                return Err(ArchiveError::SameGame {
                    first: inputs[j].0.clone(),
                    second: inputs[i].0.clone(),
                    game_uuid: game_uuid.to_string(),
                });
            }
        }
    }
    let prev = |i: usize| {
        let p = inputs[i].1.prev_game_uuid.as_deref()?;
        (0..inputs.len()).find(|&j| j != i && uuid(j) == Some(p))
    };
    let mut next: Vec<Option<usize>> = vec![None; inputs.len()];
    for i in 0..inputs.len() {
        if let Some(p) = prev(i) {
            if let Some(other) = next[p] {
                return Err(ArchiveError::Fork {
                    first: inputs[other].0.clone(),
                    second: inputs[i].0.clone(),
                    continues: inputs[p].0.clone(),
                });
            }
            next[p] = Some(i);
        }
    }
    let mut order = Vec::with_capacity(inputs.len());
    for start in (0..inputs.len()).filter(|&i| prev(i).is_none()) {
        let mut at = Some(start);
        while let Some(i) = at {
            order.push(i);
            at = next[i];
        }
    }
    if order.len() < inputs.len() {
        return Err(ArchiveError::Loop);
    }
    Ok(order)
}

/// Writes the archive `out` from teehistorian files (in session order, or
/// linked by `prev_game_uuid`). Writes a temporary file next to `out` and
/// renames it, so `out` is either complete or untouched.
///
/// Every recording goes through the teehistorian pipeline
/// ([`Scan`](crate::teehistorian::scan::Scan)) once, which also takes its
/// log and checkpoints; one that does not decode stops the pack.
pub fn pack(out: &Path, inputs: &[PathBuf], options: &PackOptions) -> Result<Packed, ArchiveError> {
    pack_with(out, inputs, options, &mut |_| {})
}

/// [`pack`], telling `progress` how far it is (bytes of recordings read).
pub fn pack_with(
    out: &Path,
    inputs: &[PathBuf],
    options: &PackOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Packed, ArchiveError> {
    if inputs.is_empty() {
        return Err(ArchiveError::NoRecordings);
    }
    if !options.compression.writable() {
        return Err(ArchiveError::ReadOnly {
            compression: options.compression,
        });
    }
    let mut headers = Vec::with_capacity(inputs.len());
    let mut total = 0;
    for path in inputs {
        let mut file = File::open(path).map_err(|e| ArchiveError::io(path, e))?;
        total += file.metadata().map_or(0, |m| m.len());
        let (header, _) = read_header(&mut file).map_err(|e| bad_input(path, e))?;
        headers.push((path.clone(), header.info));
    }
    let order = session_order(&headers)?;
    // A pass takes checkpoints at least a second apart: say so in the
    // archive.
    let every = options.every.max(MIN_EVERY);

    // The body (everything after index.txt) goes to a scratch file first:
    // the index that precedes it lists where its frames start.
    let scratch = std::env::temp_dir();
    let temporary = |e| ArchiveError::io(&scratch, e);
    let body = tempfile::tempfile().map_err(temporary)?;
    let mut w = FrameWriter::new(BufWriter::new(body), options.compression);
    let mut index = Index {
        compression: options.compression.name().to_string(),
        ..Index::default()
    };
    let mut packed = Packed {
        out: out.to_path_buf(),
        compression: options.compression,
        every,
        maps: Vec::new(),
        bytes: 0,
    };
    let mut done = 0;
    for (folder, &i) in order.iter().enumerate() {
        let path = &inputs[i];
        let n = folder as u32 + 1;
        let file = File::open(path).map_err(|e| ArchiveError::io(path, e))?;
        let src = Counted::new(BufReader::with_capacity(1 << 16, file), |n| {
            done += n;
            progress(Progress { done, total });
        });
        let a = analyse(src, Plan::Every(every), false).map_err(|e| bad_input(path, e))?;
        if let Some(error) = a.scan.error.clone() {
            return Err(ArchiveError::Recording {
                path: path.clone(),
                member: None,
                error,
            });
        }
        write_map(&mut w, &mut index, n, path, &a).map_err(|e| match e {
            Written::Changed => ArchiveError::Changed { path: path.clone() },
            Written::Io(e) => temporary(e),
        })?;
        packed.maps.push(PackedMap {
            map: n,
            input: path.clone(),
            map_name: a.header.info.map_name.clone(),
            bytes: a.scan.bytes,
            records: a.scan.records,
            last_tick: a.scan.last_tick,
            checkpoints: a.taken.len(),
            end: a.scan.end,
            findings: a.scan.findings(),
        });
    }
    members::write_end(&mut w).map_err(temporary)?;
    let (body, frames) = w.finish().map_err(temporary)?;
    index.frames = frames;
    let mut body = body.into_inner().map_err(|e| temporary(e.into_error()))?;

    let first = &headers[order[0]].1;
    let top = TopInfo {
        version: ARCHIVE_VERSION,
        name: options
            .name
            .clone()
            .or_else(|| first.server_name.clone())
            .unwrap_or_default(),
        author: options
            .author
            .clone()
            .or_else(|| first.server_version.clone())
            .unwrap_or_default(),
        date: first.start_time.clone().unwrap_or_default(),
        maps: order.len() as u32,
        every,
    };
    packed.bytes = write_out(out, &top, &index, &mut body, options.compression)?;
    Ok(packed)
}

/// The folder `out` is written in (its temporary file goes there).
fn out_dir(out: &Path) -> &Path {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Why writing a map folder failed.
enum Written {
    /// The input is not what was analysed.
    Changed,
    /// Reading the input or writing the body failed.
    Io(io::Error),
}

impl From<io::Error> for Written {
    fn from(e: io::Error) -> Self {
        Written::Io(e)
    }
}

/// Writes one map folder: info, toc, log, the recording (a frame starts
/// after its header and at each checkpoint), the history, the checkpoints. Every member
/// starts a frame.
fn write_map(
    w: &mut FrameWriter<BufWriter<File>>,
    index: &mut Index,
    n: u32,
    path: &Path,
    a: &Analysis,
) -> Result<(), Written> {
    let bytes = a.scan.bytes;
    let toc: Vec<TocEntry> = a
        .taken
        .iter()
        .enumerate()
        .map(|(k, t)| TocEntry {
            save: k as u32 + 1,
            tick: t.tick(),
            offset: t.offset,
        })
        .collect();
    let slot = |m| Slot::Map(n, m);
    write_indexed(w, index, slot(MapMember::Info), map_info(a).as_bytes())?;
    write_indexed(w, index, slot(MapMember::Toc), render_toc(&toc).as_bytes())?;
    write_indexed(w, index, slot(MapMember::Log), a.log.as_bytes())?;

    let name = start_member(w, index, slot(MapMember::Recording), bytes)?;
    w.write_all(&members::header_block(&name, bytes)?)?;
    let mut file = File::open(path)?;
    let mut copied = 0u64;
    for cut in std::iter::once(a.header_len).chain(a.taken.iter().map(|t| t.offset)) {
        copied += io::copy(&mut (&mut file).take(cut.saturating_sub(copied)), w)?;
        if copied != cut {
            return Err(Written::Changed);
        }
        w.cut()?;
    }
    copied += io::copy(&mut (&mut file).take(bytes.saturating_sub(copied)), w)?;
    if copied != bytes || file.read(&mut [0])? != 0 {
        return Err(Written::Changed);
    }
    w.write_all(&[0; members::BLOCK as usize][..members::padding(bytes)])?;

    write_indexed(
        w,
        index,
        slot(MapMember::History),
        render_history(&a.history).as_bytes(),
    )?;
    for (entry, taken) in toc.iter().zip(&a.taken) {
        write_indexed(
            w,
            index,
            slot(MapMember::Save(entry.save)),
            SaveFile::of(taken).render().as_bytes(),
        )?;
    }
    Ok(())
}

/// Starts a frame for a member and lists it in the index; returns its name.
fn start_member(
    w: &mut FrameWriter<BufWriter<File>>,
    index: &mut Index,
    slot: Slot,
    size: u64,
) -> io::Result<String> {
    w.cut()?;
    let name = slot.to_string();
    index.members.push(IndexMember {
        name: name.clone(),
        header: w.position(),
        size,
    });
    Ok(name)
}

/// Writes a whole member in a frame of its own.
fn write_indexed(
    w: &mut FrameWriter<BufWriter<File>>,
    index: &mut Index,
    slot: Slot,
    data: &[u8],
) -> io::Result<()> {
    let name = start_member(w, index, slot, data.len() as u64)?;
    members::write_member(w, &name, data)
}

/// Writes head (`info.txt`, `index.txt`, one frame) and body into a
/// temporary file in `out`'s folder, then renames it to `out`.
fn write_out(
    out: &Path,
    top: &TopInfo,
    index: &Index,
    body: &mut File,
    compression: Compression,
) -> Result<u64, ArchiveError> {
    let dir = out_dir(out);
    let failed = |e: io::Error| ArchiveError::io(out, e);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".teeoracle-pack-");
    // As `File::create` would (the umask applies), not the private mode
    // of a temporary file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(failed)?;
    {
        let mut head = FrameWriter::new(BufWriter::new(tmp.as_file_mut()), compression);
        members::write_member(
            &mut head,
            &Slot::TopInfo.to_string(),
            top.render().as_bytes(),
        )
        .map_err(failed)?;
        members::write_member(
            &mut head,
            &Slot::Index.to_string(),
            index.render().as_bytes(),
        )
        .map_err(failed)?;
        let (mut buffered, _) = head.finish().map_err(failed)?;
        body.seek(SeekFrom::Start(0)).map_err(failed)?;
        io::copy(body, &mut buffered).map_err(failed)?;
        buffered.flush().map_err(failed)?;
    }
    tmp.as_file().sync_all().map_err(failed)?;
    let bytes = tmp.as_file().metadata().map_err(failed)?.len();
    tmp.persist(out).map_err(|e| failed(e.error))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(uuid: &str, prev: Option<&str>) -> (PathBuf, HeaderInfo) {
        (
            PathBuf::from(uuid),
            HeaderInfo {
                game_uuid: Some(uuid.into()),
                prev_game_uuid: prev.map(Into::into),
                ..HeaderInfo::default()
            },
        )
    }

    #[test]
    fn map_changes_follow_their_previous_map() {
        let inputs = [
            info("c", Some("b")),
            info("x", None),
            info("b", Some("a")),
            info("a", Some("not-here")),
        ];
        assert_eq!(session_order(&inputs).unwrap(), [1, 3, 2, 0]);
        let forked = [info("a", None), info("b", Some("a")), info("c", Some("a"))];
        let order = session_order(&forked);
        assert!(order.is_err(), "a fork was ordered: {order:?}");
        let looped = [info("a", Some("b")), info("b", Some("a"))];
        let order = session_order(&looped);
        assert!(order.is_err(), "a loop was ordered: {order:?}");
        let twice = [info("a", None), info("a", None)];
        let order = session_order(&twice);
        assert!(order.is_err(), "a name given twice was ordered: {order:?}");
    }
}
