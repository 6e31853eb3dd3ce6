//! What `info` shows ([`Archive::summary`]) and a map's `log.txt`
//! ([`Archive::log`]), each member that is missing or damaged rebuilt from
//! the recordings (and said so).

use super::access::Fault;
use super::{Archive, MemberOutcome};
use crate::archive::frames::Compression;
use crate::archive::log;
use crate::archive::recording::{Plan, read_header};
use crate::archive::text::{self, MapSummary, TopInfo, parse_map_info, parse_toc};
use crate::archive::{ArchiveError, DEFAULT_EVERY};
use crate::teehistorian::HeaderInfo;
use serde::Serialize;

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
    /// The map's SHA-256, as the recording's header names it.
    pub map_sha256: Option<String>,
    /// The recording's last tick.
    pub ticks: i32,
    /// The same in seconds of game time.
    pub seconds: f64,
    /// The recording's records (`None`: its `info.txt` does not say).
    pub records: Option<u64>,
    /// How it ends, as its `info.txt` says (`finished: FINISH at byte
    /// ...`, `truncated at byte ...`, `stopped by a decode error`).
    pub end: Option<String>,
    /// Checkpoints listed in `toc.txt` (or stored, without one).
    pub checkpoints: usize,
    /// The recording's size (`None`: missing).
    pub recording_bytes: Option<u64>,
    /// The recording's `game_uuid`.
    pub game_uuid: Option<String>,
    /// Its `prev_game_uuid` (set when it continues a previous map).
    pub prev_game_uuid: Option<String>,
}

impl Archive {
    /// The top-level info as stored, or rebuilt from the first recording.
    pub(super) fn top_info(&self) -> Result<(TopInfo, Option<String>), Fault> {
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
            .filter(|v| v.status != MemberOutcome::Ok)
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
                map_sha256: summary.map_sha256,
                ticks: summary.ticks,
                seconds: f64::from(summary.ticks) / f64::from(crate::archive::TICKS_PER_SECOND),
                records: summary.records,
                end: summary.end,
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
}
