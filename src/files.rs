//! Walking folders: every file below a path, in name order. The one walk
//! of `check`, the conformance suite's corpus and the tests.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// A file or folder that could not be read or listed.
#[derive(Debug)]
pub struct WalkError {
    /// What was being done: `read` (its metadata) or `list` (a folder).
    pub what: &'static str,
    /// The path.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot {} {}: {}",
            self.what,
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for WalkError {}

/// The files below `path` (or `path` itself if it is not a folder), in
/// name order (each folder's entries sorted, sub-folders walked in
/// place), each with whether it was `named`: `path` itself rather than
/// found in a folder. Links to folders met while walking are left out
/// (a link to `..` would walk forever); a named one is followed. Named
/// pipes, sockets and devices met while walking are listed but must not
/// be opened (reading a FIFO waits for a writer that may never come):
/// [`special`] names them, and `check` reports them skipped, unread; a
/// named one is read, as `check <(zcat FILE)` asks.
pub fn walk(path: &Path, named: bool, files: &mut Vec<(PathBuf, bool)>) -> Result<(), WalkError> {
    let error = |what, source| WalkError {
        what,
        path: path.to_path_buf(),
        source,
    };
    let meta = match named {
        true => fs::metadata(path),
        false => fs::symlink_metadata(path),
    }
    .map_err(|e| error("read", e))?;
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(path)
            .and_then(|entries| entries.map(|e| Ok(e?.path())).collect())
            .map_err(|e| error("list", e))?;
        entries.sort();
        for entry in entries {
            walk(&entry, false, files)?;
        }
    } else if meta.is_symlink() && fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        // A link to a folder, met while walking: left out.
    } else {
        // A broken link stays, to be reported as unreadable.
        files.push((path.to_path_buf(), named));
    }
    Ok(())
}

/// What `path` is if it is a named pipe, a socket or a device (or a link
/// to one): something not to open unless asked by name ([`walk`]).
pub fn special(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = fs::metadata(path).ok()?.file_type();
    Some(match () {
        _ if t.is_fifo() => "a named pipe",
        _ if t.is_socket() => "a socket",
        _ if t.is_block_device() || t.is_char_device() => "a device",
        _ => return None,
    })
}

/// Every file below the folder `dir`, in name order ([`walk`]), but the
/// pipes, sockets and devices met.
pub fn files_under(dir: &Path) -> Result<Vec<PathBuf>, WalkError> {
    let mut files = Vec::new();
    walk(dir, true, &mut files)?;
    Ok(files
        .into_iter()
        .filter(|(p, named)| *named || special(p).is_none())
        .map(|(p, _)| p)
        .collect())
}

/// The name endings of the compressions a [`crate::input::Source`] reads
/// through: `x.demo.gz` is a demo.
pub const COMPRESSION_ENDINGS: [&str; 4] = [".gz", ".bz2", ".xz", ".zst"];

/// `path`'s file name, lower-cased, less one compression ending
/// ([`COMPRESSION_ENDINGS`]): what its format is judged by.
fn inner_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    Some(
        match COMPRESSION_ENDINGS
            .iter()
            .find_map(|c| name.strip_suffix(c))
        {
            Some(inner) => inner.to_string(),
            None => name,
        },
    )
}

/// `path` is named as a file of the kind `ext` (`"demo"`), compressed
/// or not: `x.demo`, `x.demo.gz`.
pub fn named_as(path: &Path, ext: &str) -> bool {
    inner_name(path).is_some_and(|n| {
        n.strip_suffix(ext)
            .is_some_and(|stem| stem.len() > 1 && stem.ends_with('.'))
    })
}

/// The files beside `path` whose names are its own with the ending `ext`
/// in place of its kind's (`x.teehistorian.gz` → `x.demo`, `x.demo.gz`,
/// ...), those that exist, in that order.
pub fn same_stem(path: &Path, ext: &str) -> Vec<PathBuf> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let inner = COMPRESSION_ENDINGS
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(name);
    let stem = inner.rsplit_once('.').map_or(inner, |(stem, _)| stem);
    std::iter::once(String::new())
        .chain(COMPRESSION_ENDINGS.iter().map(|c| c.to_string()))
        .map(|c| path.with_file_name(format!("{stem}.{ext}{c}")))
        .filter(|p| p.is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_met_while_walking_is_listed_as_special_and_a_named_one_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("a_fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(matches!(made, Ok(s) if s.success()), "mkfifo (coreutils)");
        let link = dir.path().join("b_link_to_fifo");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        let file = dir.path().join("c_file");
        fs::write(&file, b"x").unwrap();
        let mut walked = Vec::new();
        walk(dir.path(), true, &mut walked).unwrap();
        let kinds: Vec<_> = (walked.iter())
            .map(|(p, named)| (p, *named, special(p)))
            .collect();
        assert_eq!(
            kinds,
            [
                (&fifo, false, Some("a named pipe")),
                (&link, false, Some("a named pipe")),
                (&file, false, None)
            ]
        );
        assert_eq!(files_under(dir.path()).unwrap(), [file]);
        let mut named = Vec::new();
        walk(&fifo, true, &mut named).unwrap();
        assert_eq!(named, [(fifo, true)]);
    }

    #[test]
    fn files_come_in_name_order_with_folders_in_place_and_errors_name_the_path() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/packet");
        let files = files_under(&root).unwrap();
        let folders: std::collections::BTreeSet<_> =
            files.iter().filter_map(|p| p.parent()).collect();
        assert!(
            folders.len() > 2,
            "corpus/packet has sub-folders: {folders:?}"
        );
        // Path order is component order: a folder's files come together,
        // where its name sorts.
        let mut sorted = files.clone();
        sorted.sort_by(|a, b| a.components().cmp(b.components()));
        assert_eq!(files, sorted);
        let missing = root.join("missing");
        let e = files_under(&missing).unwrap_err().to_string();
        assert!(
            e.starts_with("cannot read ") && e.contains("missing"),
            "{e}"
        );
    }

    #[test]
    fn a_kind_is_named_through_a_compression_ending_and_a_stem_finds_its_kin() {
        let kinds = |name: &str| {
            ["demo", "teehistorian", "map"]
                .into_iter()
                .filter(|k| named_as(Path::new(name), k))
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds("a/x.demo"), ["demo"]);
        assert_eq!(kinds("x.DEMO.gz"), ["demo"]);
        assert_eq!(kinds("x.teehistorian.zst"), ["teehistorian"]);
        assert!(kinds(".demo").is_empty() && kinds("xdemo").is_empty());
        assert!(kinds("x.demo.gz.gz").is_empty() && kinds("x.demo.tar").is_empty());
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "s.demo.gz",
            "s.demo",
            "s.map",
            "t.demo",
            "s.teehistorian.gz",
        ] {
            fs::write(dir.path().join(name), b"x").unwrap();
        }
        let th = dir.path().join("s.teehistorian.gz");
        let names = |found: Vec<PathBuf>| -> Vec<String> {
            found
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names(same_stem(&th, "demo")), ["s.demo", "s.demo.gz"]);
        assert_eq!(
            names(same_stem(&dir.path().join("s.teehistorian"), "map")),
            ["s.map"]
        );
        assert!(same_stem(&dir.path().join("u.teehistorian"), "demo").is_empty());
    }
}
