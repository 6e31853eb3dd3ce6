//! The archive's small members: `info.txt` (top level and per map),
//! `toc.txt`, `index.txt` and the checkpoints `save<k>.ron`. Each renders
//! deterministically and parses strictly, so a damaged one is noticed.

use super::frames::{Compression, Frame};
use super::recording::{Analysis, Taken};
use super::text_error::quoted;
pub use super::text_error::{Expected, TextError};
use crate::teehistorian::{Checkpoint, History, HistoryLen};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The archive format version in the top-level `info.txt`.
pub const ARCHIVE_VERSION: u32 = 2;

/// A `key: value` value on one line: as it is, or as a JSON string when
/// it would not survive that (line breaks, control bytes, edge spaces, a
/// leading quote).
fn value(s: &str) -> String {
    let plain = !s.starts_with('"') && s.trim() == s && !s.chars().any(char::is_control);
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

fn parse_value(n: usize, s: &str) -> Result<String, TextError> {
    if s.starts_with('"') {
        serde_json::from_str(s).map_err(|_| TextError::at(n, Expected::JsonString, quoted(s)))
    } else {
        Ok(s.to_string())
    }
}

/// The `key: value` lines of a text, with their line numbers; comments
/// (`#`), blank lines and section titles (`[...]`) are skipped, and
/// everything from `[settings]` on (JSON) is left out.
fn fields(text: &str) -> Result<Vec<(usize, &str, String)>, TextError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line == "[settings]" {
            break;
        }
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let (key, v) = line.split_once(": ").ok_or_else(|| {
            TextError::at(
                n,
                Expected::Shape {
                    shape: "`key: value`",
                },
                quoted(line),
            )
        })?;
        out.push((n, key, parse_value(n, v)?));
    }
    Ok(out)
}

/// The top-level `info.txt`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TopInfo {
    /// The archive format version ([`ARCHIVE_VERSION`]).
    pub version: u32,
    /// The archive's name.
    pub name: String,
    /// Its author.
    pub author: String,
    /// When the first map was recorded: its header's `start_time`.
    pub date: String,
    /// Map folders.
    pub maps: u32,
    /// Checkpoint spacing in ticks (used when checkpoints are rebuilt).
    pub every: i32,
}

impl TopInfo {
    /// The member's text.
    pub fn render(&self) -> String {
        format!(
            "# teeoracle recording archive: one folder per map, in recording order\n\
             version: {}\nname: {}\nauthor: {}\ndate: {}\nmaps: {}\ncheckpoint_every: {} ticks\n",
            self.version,
            value(&self.name),
            value(&self.author),
            value(&self.date),
            self.maps,
            self.every
        )
    }

    /// Parses the member; later versions' extra keys are ignored.
    pub fn parse(text: &str) -> Result<TopInfo, TextError> {
        let mut info = TopInfo {
            version: 0,
            name: String::new(),
            author: String::new(),
            date: String::new(),
            maps: 0,
            every: 0,
        };
        let mut seen = [false; 3];
        for (n, key, v) in fields(text)? {
            let number = |key, s: &str| {
                s.parse::<u32>()
                    .map_err(|_| TextError::at(n, Expected::Number { key }, quoted(s)))
            };
            match key {
                "version" => {
                    info.version = number("version", &v)?;
                    seen[0] = true;
                }
                "name" => info.name = v,
                "author" => info.author = v,
                "date" => info.date = v,
                "maps" => {
                    info.maps = number("maps", &v)?;
                    seen[1] = true;
                }
                "checkpoint_every" => {
                    let ticks = v.strip_suffix(" ticks").unwrap_or(&v);
                    info.every =
                        number("checkpoint_every", ticks)?.clamp(1, i32::MAX as u32) as i32;
                    seen[2] = true;
                }
                _ => {} // later versions may add fields
            }
        }
        for (present, key) in seen.iter().zip(["version", "maps", "checkpoint_every"]) {
            if !present {
                return Err(TextError::whole(Expected::Key { key }));
            }
        }
        if info.version != ARCHIVE_VERSION {
            return Err(TextError {
                line: None,
                expected: Expected::Version {
                    supported: ARCHIVE_VERSION,
                },
                found: Some(format!("version {}", info.version)),
            });
        }
        Ok(info)
    }
}

/// Seconds of game time, two decimals.
pub fn seconds(ticks: i32) -> String {
    let tps = super::TICKS_PER_SECOND;
    format!("{}.{:02}", ticks / tps, ticks % tps * 100 / tps)
}

/// A map folder's `info.txt`: everything in it comes from the recording.
pub fn map_info(a: &Analysis) -> String {
    let h = &a.header.info;
    let mut s = String::from("# what demodata.bin says (rebuilt from it when lost)\n");
    let line = |s: &mut String, key: &str, v: Option<&String>| {
        if let Some(v) = v {
            let _ = writeln!(s, "{key}: {}", value(v));
        }
    };
    let version = match &h.version_minor {
        Some(minor) => format!("teehistorian {}.{}", h.version, minor),
        None => format!("teehistorian {}", h.version),
    };
    line(&mut s, "recording", Some(&version));
    line(&mut s, "game_uuid", h.game_uuid.as_ref());
    line(&mut s, "prev_game_uuid", h.prev_game_uuid.as_ref());
    line(&mut s, "server_version", h.server_version.as_ref());
    line(&mut s, "server_name", h.server_name.as_ref());
    line(&mut s, "start_time", h.start_time.as_ref());
    line(&mut s, "game_type", h.game_type.as_ref());
    s.push_str("\n[resources]\n");
    line(&mut s, "map_name", h.map_name.as_ref());
    line(&mut s, "map_sha256", h.map_sha256.as_ref());
    line(&mut s, "map_crc", h.map_crc.as_ref());
    line(&mut s, "map_size", h.map_size.as_ref());
    let end = end_text(a);
    let _ = write!(
        s,
        "\n[length]\nticks: {}\nseconds: {}\nrecords: {}\nbytes: {}\nend: {end}\n",
        a.scan.last_tick,
        seconds(a.scan.last_tick),
        a.scan.records,
        a.scan.bytes
    );
    let pairs = |pairs: &[(String, String)]| {
        serde_json::Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect(),
        )
    };
    let settings = serde_json::json!({ "config": pairs(&h.config), "tuning": pairs(&h.tuning) });
    let _ = writeln!(
        s,
        "\n[settings]\n{}",
        serde_json::to_string_pretty(&settings).unwrap_or_default()
    );
    s
}

/// How a recording ends, as its `info.txt` says it (`end:`).
fn end_text(a: &Analysis) -> String {
    a.scan
        .end
        .map_or("stopped by a decode error".into(), |e| e.to_string())
}

/// What the `info` command shows of a map's `info.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapSummary {
    /// The map's name.
    pub map_name: Option<String>,
    /// The map's SHA-256, as the header names it.
    pub map_sha256: Option<String>,
    /// The recording's last tick.
    pub ticks: i32,
    /// The recording's records.
    pub records: Option<u64>,
    /// How it ends (`end:`, e.g. `finished: FINISH at byte ...`).
    pub end: Option<String>,
    /// The recording's `game_uuid`.
    pub game_uuid: Option<String>,
    /// Its `prev_game_uuid`.
    pub prev_game_uuid: Option<String>,
}

impl MapSummary {
    /// The summary of a recording, as its `info.txt` gives it.
    pub fn of(a: &Analysis) -> MapSummary {
        let h = &a.header.info;
        MapSummary {
            map_name: h.map_name.clone(),
            map_sha256: h.map_sha256.clone(),
            ticks: a.scan.last_tick,
            records: Some(a.scan.records),
            end: Some(end_text(a)),
            game_uuid: h.game_uuid.clone(),
            prev_game_uuid: h.prev_game_uuid.clone(),
        }
    }
}

/// Reads the summary back from a map's `info.txt`.
pub fn parse_map_info(text: &str) -> Result<MapSummary, TextError> {
    let mut summary = MapSummary {
        map_name: None,
        map_sha256: None,
        ticks: -1,
        records: None,
        end: None,
        game_uuid: None,
        prev_game_uuid: None,
    };
    for (n, key, v) in fields(text)? {
        match key {
            "map_name" => summary.map_name = Some(v),
            "map_sha256" => summary.map_sha256 = Some(v),
            "game_uuid" => summary.game_uuid = Some(v),
            "prev_game_uuid" => summary.prev_game_uuid = Some(v),
            "end" => summary.end = Some(v),
            "records" => {
                let records = v.parse().map_err(|_| {
                    TextError::at(n, Expected::Number { key: "records" }, quoted(&v))
                })?;
                summary.records = Some(records);
            }
            "ticks" => {
                summary.ticks = v.parse().ok().filter(|&t: &i32| t >= 0).ok_or_else(|| {
                    TextError::at(n, Expected::Number { key: "ticks" }, quoted(&v))
                })?;
            }
            _ => {}
        }
    }
    if summary.ticks < 0 {
        return Err(TextError::whole(Expected::Key { key: "ticks" }));
    }
    Ok(summary)
}

/// One checkpoint in `toc.txt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TocEntry {
    /// `save<k>.ron`.
    pub save: u32,
    /// The tick of the last record the checkpoint holds.
    pub tick: i32,
    /// Offset in `demodata.bin` of the first record after it.
    pub offset: u64,
}

const TOC_HEADER: &str = "# toc.txt: checkpoint, tick (the last tick it holds), byte offset in demodata.bin where the replay resumes\n";

/// The text of `toc.txt`.
pub fn render_toc(entries: &[TocEntry]) -> String {
    let mut s = String::from(TOC_HEADER);
    for e in entries {
        let _ = writeln!(s, "save{}.ron {} {}", e.save, e.tick, e.offset);
    }
    s
}

/// Parses `toc.txt`: entries in ascending offset (and tick) order, each
/// save named once.
pub fn parse_toc(text: &str) -> Result<Vec<TocEntry>, TextError> {
    let mut entries: Vec<TocEntry> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || {
            TextError::at(
                n,
                Expected::Shape {
                    shape: "`save<k>.ron TICK OFFSET`",
                },
                quoted(line),
            )
        };
        let mut parts = line.split(' ');
        let (Some(name), Some(tick), Some(offset), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let Some(super::members::Slot::Map(1, super::members::MapMember::Save(save))) =
            super::members::Slot::parse(&format!("1/{name}"))
        else {
            return Err(bad());
        };
        let entry = TocEntry {
            save,
            tick: tick.parse().map_err(|_| bad())?,
            offset: offset.parse().map_err(|_| bad())?,
        };
        if let Some(prev) = entries.last()
            && (entry.offset <= prev.offset || entry.tick < prev.tick)
        {
            return Err(TextError::at(
                n,
                Expected::Ascending {
                    what: "checkpoints",
                },
                format!(
                    "byte {} tick {} after byte {} tick {}",
                    entry.offset, entry.tick, prev.offset, prev.tick
                ),
            ));
        }
        if entries.iter().any(|e| e.save == save) {
            return Err(TextError::at(
                n,
                Expected::ListedOnce,
                format!("save{save}.ron a second time"),
            ));
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// A checkpoint member: the replay state and where it resumes. Its
/// world's history lists are empty: it shares the map's `history.ron`,
/// cut to `history`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveFile {
    /// Offset in `demodata.bin` of the first record after the checkpoint.
    pub offset: u64,
    /// How much of `history.ron` the world holds.
    pub history: HistoryLen,
    /// The replay there, without its history.
    pub checkpoint: Checkpoint,
}

/// RON as the archive writes it: two-space indent, `\n`.
fn ron_text<T: Serialize>(value: &T) -> String {
    let config = ron::ser::PrettyConfig::new().indentor("  ").new_line("\n");
    ron::ser::to_string_pretty(value, config).unwrap_or_default()
}

fn parse_ron<T: serde::de::DeserializeOwned>(
    text: &str,
    expected: Expected,
) -> Result<T, TextError> {
    ron::from_str(text).map_err(|e| TextError {
        line: Some(e.span.start.line),
        expected,
        found: Some(e.code.to_string()),
    })
}

impl SaveFile {
    /// The member for a checkpoint taken in a pass.
    pub fn of(taken: &Taken) -> SaveFile {
        SaveFile {
            offset: taken.offset,
            history: taken.history,
            checkpoint: taken.checkpoint.clone(),
        }
    }

    /// The member's text (RON, after a comment line).
    pub fn render(&self) -> String {
        format!(
            "// teeoracle checkpoint: the replay after every record before byte {} of demodata.bin (its history: history.ron, cut to these lengths)\n{}\n",
            self.offset,
            ron_text(self)
        )
    }

    /// Parses a checkpoint member.
    pub fn parse(text: &str) -> Result<SaveFile, TextError> {
        parse_ron(text, Expected::Checkpoint)
    }
}

/// `history.ron`: the history lists of the whole recording (saves and
/// loads, swaps, console commands), which every checkpoint shares.
pub fn render_history(history: &History) -> String {
    format!(
        "// teeoracle history: every save, swap and console command of demodata.bin\n{}\n",
        ron_text(history)
    )
}

/// Parses `history.ron`.
pub fn parse_history(text: &str) -> Result<History, TextError> {
    parse_ron(text, Expected::History)
}

/// `index.txt`: where the members after it and the compressed frames
/// start. Offsets count from the end of `index.txt` (uncompressed: after
/// its padding) and from the end of the compressed frame holding it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Index {
    /// The compression the frames are in.
    pub compression: String,
    /// Where frames start.
    pub frames: Vec<Frame>,
    /// Where members start.
    pub members: Vec<IndexMember>,
}

/// A member in `index.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexMember {
    /// Its name.
    pub name: String,
    /// Offset of its header block.
    pub header: u64,
    /// Its size.
    pub size: u64,
}

const INDEX_HEADER: &str = "# index.txt: where the members after this one and the compressed frames start, for reading from the middle\n\
# offsets count from the end of this member: uncompressed from after its padding, compressed from the end of its frame\n";

impl Index {
    /// The member's text.
    pub fn render(&self) -> String {
        let mut s = String::from(INDEX_HEADER);
        let _ = writeln!(s, "compression: {}", self.compression);
        // Frames and members interleaved in offset order.
        let (mut f, mut m) = (
            self.frames.iter().peekable(),
            self.members.iter().peekable(),
        );
        loop {
            match (f.peek(), m.peek()) {
                (Some(fr), Some(mm)) if fr.uncompressed <= mm.header => {
                    let _ = writeln!(s, "frame {} {}", fr.uncompressed, fr.compressed);
                    f.next();
                }
                (_, Some(mm)) => {
                    let _ = writeln!(s, "member {} {} {}", mm.header, mm.size, mm.name);
                    m.next();
                }
                (Some(fr), None) => {
                    let _ = writeln!(s, "frame {} {}", fr.uncompressed, fr.compressed);
                    f.next();
                }
                (None, None) => break,
            }
        }
        s
    }

    /// Parses the member, strictly: every line known, everything in order.
    pub fn parse(text: &str) -> Result<Index, TextError> {
        let mut index = Index::default();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |shape| TextError::at(n, Expected::Shape { shape }, quoted(line));
            let num = |s: Option<&str>, what: &'static str| {
                s.and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| bad(what))
            };
            if let Some(c) = line.strip_prefix("compression: ") {
                index.compression = c.to_string();
            } else if let Some(rest) = line.strip_prefix("frame ") {
                let mut p = rest.split(' ');
                let what = "`frame UNCOMPRESSED COMPRESSED`";
                let frame = Frame {
                    uncompressed: num(p.next(), what)?,
                    compressed: num(p.next(), what)?,
                };
                if p.next().is_some() {
                    return Err(bad(what));
                }
                if let Some(prev) = index.frames.last()
                    && (frame.uncompressed <= prev.uncompressed
                        || frame.compressed <= prev.compressed)
                {
                    return Err(TextError::at(
                        n,
                        Expected::Ascending { what: "frames" },
                        quoted(line),
                    ));
                }
                index.frames.push(frame);
            } else if let Some(rest) = line.strip_prefix("member ") {
                let what = "`member HEADER SIZE NAME`";
                let mut p = rest.splitn(3, ' ');
                let header = num(p.next(), what)?;
                let size = num(p.next(), what)?;
                let name = p
                    .next()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| bad(what))?;
                if let Some(prev) = index.members.last()
                    && header <= prev.header
                {
                    return Err(TextError::at(
                        n,
                        Expected::Ascending { what: "members" },
                        quoted(line),
                    ));
                }
                index.members.push(IndexMember {
                    name: name.to_string(),
                    header,
                    size,
                });
            } else {
                return Err(bad("`compression:`, `frame` or `member`"));
            }
        }
        if index.compression.is_empty() {
            return Err(TextError::whole(Expected::Key { key: "compression" }));
        }
        if index.members.first().is_some_and(|m| m.header != 0)
            || index.frames.first().is_some_and(|f| {
                *f != Frame {
                    uncompressed: 0,
                    compressed: 0,
                }
            })
        {
            return Err(TextError::whole(Expected::StartAtZero));
        }
        Ok(index)
    }

    /// Whether the index was written for archives stored this way.
    pub fn describes(&self, compression: Compression) -> bool {
        self.compression == compression.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_info_round_trips_awkward_values() {
        let info = TopInfo {
            version: ARCHIVE_VERSION,
            name: "\"quoted\" name".into(),
            author: " line\nbreak ".into(),
            date: "2026-11-22T02:30:41+0000".into(),
            maps: 2,
            every: 1500,
        };
        let text = info.render();
        assert!(text.contains("date: 2026-11-22T02:30:41+0000\n"), "{text}");
        assert_eq!(TopInfo::parse(&text), Ok(info));
        let e = TopInfo::parse("version: 1\nmaps: 1\ncheckpoint_every: 5 ticks\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "expected archive version 2 (the version this teeoracle reads), found version 1"
        );
        let e = TopInfo::parse("version: 2\n").unwrap_err();
        assert_eq!(e.expected, Expected::Key { key: "maps" });
        let e = TopInfo::parse("version: 1\nmaps: x\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: expected a number for maps, found \"x\""
        );
    }

    #[test]
    fn toc_is_strict() {
        let entries = [
            TocEntry {
                save: 1,
                tick: 1500,
                offset: 900,
            },
            TocEntry {
                save: 3,
                tick: 3000,
                offset: 1800,
            },
        ];
        assert_eq!(parse_toc(&render_toc(&entries)), Ok(entries.to_vec()));
        for bad in [
            "save1.ron 1 2 3",
            "save0.ron 1 2",
            "save1.ron x 2",
            "save1.ron 10 20\nsave2.ron 5 30",
            "save1.ron 10 20\nsave2.ron 10 20",
            "save1.ron 10 20\nsave1.ron 20 40",
            "save1.ron 10 -20",
        ] {
            assert!(parse_toc(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn index_round_trips_and_rejects_disorder() {
        let index = Index {
            compression: "bzip2".into(),
            frames: vec![
                Frame {
                    uncompressed: 0,
                    compressed: 0,
                },
                Frame {
                    uncompressed: 1024,
                    compressed: 300,
                },
            ],
            members: vec![
                IndexMember {
                    name: "1/info.txt".into(),
                    header: 0,
                    size: 600,
                },
                IndexMember {
                    name: "1/toc.txt".into(),
                    header: 1024,
                    size: 10,
                },
            ],
        };
        let text = index.render();
        assert_eq!(Index::parse(&text), Ok(index));
        for bad in [
            "compression: bzip2\nframe 0 0\nframe 0 5\n",
            "frame 0 0\n",
            "compression: bzip2\nmember 5 1 a\n",
        ] {
            let parsed = Index::parse(bad);
            assert!(parsed.is_err(), "{bad:?} parsed: {parsed:?}");
        }
    }
}
