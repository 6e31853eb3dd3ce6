//! Folders of recordings paired by role, not by file name: the n-th
//! map's teehistorian file with the n-th (in server order: the
//! `prev_game_uuid` -> `game_uuid` chain, then `start_time`), demos and
//! captures by file name (captures left over, then in name order).

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What a file is, as far as pairing goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A teehistorian file and its header's order fields.
    Teehistorian {
        /// `game_uuid`.
        game_uuid: Option<String>,
        /// `prev_game_uuid` (the map before, on the same server).
        prev_game_uuid: Option<String>,
        /// `start_time`.
        start_time: Option<String>,
    },
    /// A demo.
    Demo,
    /// A pcap or pcapng capture.
    Capture,
    /// Anything else (not compared).
    Other,
}

/// A file of a folder: its path relative to the folder, and kind.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The path relative to the folder (`/`-separated).
    pub path: String,
    /// Its kind.
    pub kind: Kind,
}

/// What a file is from its first bytes (a teehistorian header is read
/// from them: give at least its length, e.g. 1 MiB).
pub fn kind_of(bytes: &[u8]) -> Kind {
    if bytes.starts_with(crate::teehistorian::MAGIC.as_bytes()) {
        let header = crate::teehistorian::SliceReader::new(bytes, crate::codec::Mode::Lenient)
            .ok()
            .map(|(h, _)| h.info);
        let (game_uuid, prev_game_uuid, start_time) = match header {
            Some(i) => (i.game_uuid, i.prev_game_uuid, i.start_time),
            None => (None, None, None),
        };
        Kind::Teehistorian {
            game_uuid,
            prev_game_uuid,
            start_time,
        }
    } else if crate::demo::is_demo(bytes) {
        Kind::Demo
    } else if crate::capture::is_capture(bytes) {
        Kind::Capture
    } else {
        Kind::Other
    }
}

/// Two files paired by role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pair {
    /// `teehistorian #N` (the N-th map, from 1), `demo NAME`, `capture
    /// NAME`.
    pub role: String,
    /// The old folder's file (relative path).
    pub old: String,
    /// The new folder's file.
    pub new: String,
}

/// A recording only one folder has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unpaired {
    /// Its role, as [`Pair::role`].
    pub role: String,
    /// `old` or `new`.
    pub side: &'static str,
    /// Its relative path.
    pub path: String,
}

/// Bytes of a file read to tell its kind in a folder (a teehistorian
/// header is far shorter).
pub const KIND_PREFIX: u64 = 1 << 20;

/// The first [`KIND_PREFIX`] bytes of the file at `path` (none when it
/// cannot be read).
pub fn head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(KIND_PREFIX).read_to_end(&mut head);
    }
    head
}

/// Every file under `dir` (recursively, in name order) with its
/// [`Entry`]: its path relative to `dir` and its kind (from its first
/// [`KIND_PREFIX`] bytes). A folder that cannot be listed is an error
/// naming it.
pub fn entries(dir: &Path) -> Result<Vec<(PathBuf, Entry)>, (PathBuf, std::io::Error)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let list = std::fs::read_dir(&d).map_err(|e| (d.clone(), e))?;
        for entry in list.flatten() {
            let p = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => files.push(p),
                _ => {}
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let rel = p
            .strip_prefix(dir)
            .unwrap_or(&p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let kind = kind_of(&head(&p));
        out.push((p, Entry { path: rel, kind }));
    }
    Ok(out)
}

/// The roles of the recordings directly inside each folder of `paths` (a
/// `record` folder: `teehistorian #N` in server order, `demo NAME`,
/// `capture NAME`), by the path their verdict names: a baseline pairs
/// files by role, so two runs' folders compare whatever they and their
/// files are called. Files deeper down, and paths that are files, have
/// no role.
pub fn roles_in_folders(paths: &[PathBuf]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for dir in paths.iter().filter(|p| p.is_dir()) {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .collect();
        files.sort();
        let entries: Vec<Entry> = files
            .iter()
            .map(|p| Entry {
                path: p.display().to_string(),
                kind: kind_of(&head(p)),
            })
            .collect();
        out.extend(roles(&entries));
    }
    out
}

/// Each entry's role in its folder (`path` -> role), recordings only:
/// teehistorian files numbered in server order, demos and captures by
/// path.
pub fn roles(entries: &[Entry]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (n, path) in teehistorian_order(entries).into_iter().enumerate() {
        out.insert(path.clone(), format!("teehistorian #{}", n + 1));
    }
    for e in entries {
        let word = match e.kind {
            Kind::Demo => "demo",
            Kind::Capture => "capture",
            _ => continue,
        };
        out.insert(e.path.clone(), format!("{word} {}", e.path));
    }
    out
}

/// The teehistorian files' paths in server order: chains of
/// `prev_game_uuid` -> `game_uuid`, each chain from its first file (one
/// whose previous game is not here), chains by start time then path;
/// files in a cycle last, by start time then path.
fn teehistorian_order(entries: &[Entry]) -> Vec<&String> {
    type Th<'e> = (
        &'e Option<String>,
        &'e String,
        &'e Option<String>,
        &'e Option<String>,
    );
    // (start_time, path, game_uuid, prev_game_uuid), sorted.
    let mut files: Vec<Th> = entries
        .iter()
        .filter_map(|e| match &e.kind {
            Kind::Teehistorian {
                game_uuid,
                prev_game_uuid,
                start_time,
            } => Some((start_time, &e.path, game_uuid, prev_game_uuid)),
            _ => None,
        })
        .collect();
    files.sort();
    let uuids: BTreeSet<&String> = files.iter().filter_map(|f| f.2.as_ref()).collect();
    let mut done: BTreeSet<&String> = BTreeSet::new();
    let mut order = Vec::new();
    let first = |f: &Th| f.3.as_ref().is_none_or(|p| !uuids.contains(p));
    for start in files.iter().filter(|f| first(f)) {
        let mut at = Some(*start);
        while let Some(f) = at {
            if !done.insert(f.1) {
                break;
            }
            order.push(f.1);
            // The next map: the first (by start time, path) whose
            // previous game is this one.
            at = f.2.as_ref().and_then(|uuid| {
                files
                    .iter()
                    .find(|g| g.3.as_ref() == Some(uuid) && !done.contains(g.1))
                    .copied()
            });
        }
    }
    for f in &files {
        if done.insert(f.1) {
            order.push(f.1);
        }
    }
    order
}

/// Pairs two folders' recordings by role; what only one has is unpaired.
/// Captures whose names differ are paired in name order.
pub fn pair(old: &[Entry], new: &[Entry]) -> (Vec<Pair>, Vec<Unpaired>) {
    let (ra, rb) = (roles(old), roles(new));
    let by_role = |r: &BTreeMap<String, String>| -> BTreeMap<String, String> {
        r.iter()
            .map(|(p, role)| (role.clone(), p.clone()))
            .collect()
    };
    let (mut a, mut b) = (by_role(&ra), by_role(&rb));
    let mut pairs = Vec::new();
    let common: Vec<String> = a.keys().filter(|k| b.contains_key(*k)).cloned().collect();
    for role in common {
        if let (Some(o), Some(n)) = (a.remove(&role), b.remove(&role)) {
            pairs.push(Pair {
                role,
                old: o,
                new: n,
            });
        }
    }
    // Captures left on both sides: in name order.
    let left = |m: &BTreeMap<String, String>| -> Vec<String> {
        m.keys()
            .filter(|r| r.starts_with("capture "))
            .cloned()
            .collect()
    };
    for (x, y) in left(&a).into_iter().zip(left(&b)) {
        if let (Some(o), Some(n)) = (a.remove(&x), b.remove(&y)) {
            pairs.push(Pair {
                role: format!("capture {n} (as {o})"),
                old: o,
                new: n,
            });
        }
    }
    let mut unpaired: Vec<Unpaired> = a
        .into_iter()
        .map(|(role, path)| Unpaired {
            role,
            side: "old",
            path,
        })
        .chain(b.into_iter().map(|(role, path)| Unpaired {
            role,
            side: "new",
            path,
        }))
        .collect();
    unpaired.sort_by(|x, y| (x.side, &x.path).cmp(&(y.side, &y.path)));
    pairs.sort_by(|x, y| x.role.cmp(&y.role));
    (pairs, unpaired)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn th(path: &str, uuid: &str, prev: Option<&str>, start: &str) -> Entry {
        Entry {
            path: path.into(),
            kind: Kind::Teehistorian {
                game_uuid: Some(uuid.into()),
                prev_game_uuid: prev.map(str::to_string),
                start_time: Some(start.into()),
            },
        }
    }

    #[test]
    fn teehistorian_files_pair_in_server_order_whatever_their_names() {
        // The chain says c, a, b; the start times (same second) do not.
        let old = [
            th("zz.teehistorian", "1", None, "2024-01-01 00:00:00 +0000"),
            th(
                "aa.teehistorian",
                "2",
                Some("1"),
                "2024-01-01 00:00:00 +0000",
            ),
            th(
                "mm.teehistorian",
                "3",
                Some("2"),
                "2024-01-01 00:00:00 +0000",
            ),
        ];
        let new = [
            th(
                "server-3.teehistorian",
                "9",
                Some("8"),
                "2025-01-01 00:00:00 +0000",
            ),
            th(
                "server-1.teehistorian",
                "7",
                None,
                "2025-01-01 00:00:00 +0000",
            ),
            th(
                "server-2.teehistorian",
                "8",
                Some("7"),
                "2025-01-01 00:00:00 +0000",
            ),
        ];
        let (pairs, unpaired) = pair(&old, &new);
        let got: Vec<(&str, &str)> = pairs.iter().map(|p| (&p.old[..], &p.new[..])).collect();
        assert_eq!(
            got,
            [
                ("zz.teehistorian", "server-1.teehistorian"),
                ("aa.teehistorian", "server-2.teehistorian"),
                ("mm.teehistorian", "server-3.teehistorian"),
            ],
            "{pairs:?}"
        );
        assert!(unpaired.is_empty(), "{unpaired:?}");
    }

    #[test]
    fn a_map_only_one_folder_has_is_unpaired() {
        let old = [th("a", "1", None, "1"), th("b", "2", Some("1"), "2")];
        let new = [th("x", "5", None, "1")];
        let (pairs, unpaired) = pair(&old, &new);
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        assert_eq!((&pairs[0].old[..], &pairs[0].new[..]), ("a", "x"));
        assert_eq!(unpaired.len(), 1, "{unpaired:?}");
        assert_eq!((unpaired[0].side, &unpaired[0].path[..]), ("old", "b"));
    }
}
