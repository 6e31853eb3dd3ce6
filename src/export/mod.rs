//! Recordings as Apache Parquet tables, for analysts: `teeoracle export`.
//!
//! An [`Exporter`] writes ten tables into a folder, one Parquet file each
//! (their columns are specified in `src/schema.md`, `# export`, and
//! versioned by [`SCHEMA_VERSION`], which every file carries as its
//! `teeoracle.schema_version` metadata key):
//!
//! - `teehistorian_records`: every record of every teehistorian file:
//!   the common ones in typed columns, the others as their line of
//!   `teehistorian dump --format jsonl`;
//! - `player_states`: the replayed world ([`crate::teehistorian::Replay`])
//!   at the end of each tick a file records, one row per player present;
//! - `demo_events`: what DDNet's demo player meets in each demo;
//! - `characters`: each Character item (with its DDNetCharacter item) of
//!   each demo snapshot;
//! - `datagrams`: each captured datagram with DDNet's verdict and the
//!   session replay's anomalies;
//! - `check_reports`: each file's check verdict, one row per finding;
//! - `sessions`, `players`, `chat`, `votes`: each recording's header,
//!   its player sessions under a key that survives client id reuse and
//!   map changes, what was said and voted ([`sessions`]).
//!
//! Files are added one at a time, in the caller's order; each file's rows
//! of a table form row groups of their own (at most [`table::ROWS`] rows
//! each), written as soon as they are complete, so memory holds at most
//! one row group per table plus the file being read (a teehistorian file
//! is streamed; a demo or capture is read whole, as `check` reads it).
//! The output is a function of the input: no clock, no randomness, files
//! in the order given.

mod sessions;
pub mod table;
#[cfg(test)]
mod tests;

use crate::check::Verdict;
use crate::codec::Mode;
use crate::input::Source;
use crate::snapshot::items::Value;
use crate::teehistorian::json::RecordLine;
use crate::teehistorian::{Record, Replay, ReplayConfig, StreamReader};
pub use sessions::{TICKS_PER_SECOND, seconds};
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use table::{Column, Table, Type, V};

/// The version of the tables' schema (`src/schema.md`, `# export`):
/// renaming or removing a column, or changing its meaning, changes it.
pub const SCHEMA_VERSION: u32 = 2;

use Type::{Bool, F64, I32, I64, Str};

/// `teehistorian_records`.
const RECORDS: &[Column] = &[
    ("file", Str, false),
    ("offset", I64, false),
    ("tick", I32, false),
    ("kind", Str, false),
    ("cid", I32, true),
    ("cid2", I32, true),
    ("bytes", I32, false),
    ("dx", I32, true),
    ("dy", I32, true),
    ("x", I32, true),
    ("y", I32, true),
    ("dt", I32, true),
    ("direction", I32, true),
    ("target_x", I32, true),
    ("target_y", I32, true),
    ("jump", I32, true),
    ("fire", I32, true),
    ("hook", I32, true),
    ("player_flags", I32, true),
    ("wanted_weapon", I32, true),
    ("next_weapon", I32, true),
    ("prev_weapon", I32, true),
    ("record", Str, true),
];

/// `player_states`.
const PLAYER_STATES: &[Column] = &[
    ("file", Str, false),
    ("tick", I32, false),
    ("seconds", F64, false),
    ("cid", I32, false),
    ("player", Str, true),
    ("name", Str, true),
    ("team", I32, false),
    ("connected", Bool, false),
    ("alive", Bool, false),
    ("life", I32, true),
    ("x", I32, true),
    ("y", I32, true),
    ("direction", I32, true),
    ("target_x", I32, true),
    ("target_y", I32, true),
    ("jump", I32, true),
    ("fire", I32, true),
    ("hook", I32, true),
    ("player_flags", I32, true),
    ("wanted_weapon", I32, true),
    ("next_weapon", I32, true),
    ("prev_weapon", I32, true),
    ("protocol", Str, true),
    ("ddnet_version", I32, true),
    ("auth_level", I32, true),
];

/// `demo_events`.
const EVENTS: &[Column] = &[
    ("file", Str, false),
    ("index", I64, false),
    ("offset", I64, false),
    ("tick", I32, false),
    ("seconds", F64, true),
    ("kind", Str, false),
    ("cid", I32, true),
    ("cid2", I32, true),
    ("keyframe", Bool, true),
    ("message", Str, true),
    ("system", Bool, true),
    ("items", I32, true),
    ("event", Str, true),
];

/// The Character item's fields (0.6/DDNet and 0.7 tables) exported, by
/// their names in the tables; the core's `tick` is `core_tick`.
const CHARACTER_FIELDS: [&str; 23] = [
    "tick",
    "x",
    "y",
    "vel_x",
    "vel_y",
    "angle",
    "direction",
    "jumped",
    "hooked_player",
    "hook_state",
    "hook_tick",
    "hook_x",
    "hook_y",
    "hook_dx",
    "hook_dy",
    "player_flags",
    "health",
    "armor",
    "ammo_count",
    "weapon",
    "emote",
    "attack_tick",
    "triggered_events",
];

/// The DDNetCharacter item's fields exported; `flags` is `ddnet_flags`.
const DDNET_FIELDS: [&str; 11] = [
    "flags",
    "freeze_end",
    "jumps",
    "tele_checkpoint",
    "strong_weak_id",
    "jumped_total",
    "ninja_activation_tick",
    "freeze_start",
    "target_x",
    "target_y",
    "tune_zone_override",
];

/// `characters`.
const CHARACTERS: &[Column] = &[
    ("file", Str, false),
    ("tick", I32, false),
    ("cid", I32, false),
    ("name", Str, true),
    ("core_tick", I32, true),
    ("x", I32, true),
    ("y", I32, true),
    ("vel_x", I32, true),
    ("vel_y", I32, true),
    ("angle", I32, true),
    ("direction", I32, true),
    ("jumped", I32, true),
    ("hooked_player", I32, true),
    ("hook_state", I32, true),
    ("hook_tick", I32, true),
    ("hook_x", I32, true),
    ("hook_y", I32, true),
    ("hook_dx", I32, true),
    ("hook_dy", I32, true),
    ("player_flags", I32, true),
    ("health", I32, true),
    ("armor", I32, true),
    ("ammo_count", I32, true),
    ("weapon", I32, true),
    ("emote", I32, true),
    ("attack_tick", I32, true),
    ("triggered_events", I32, true),
    ("ddnet_flags", I32, true),
    ("freeze_end", I32, true),
    ("jumps", I32, true),
    ("tele_checkpoint", I32, true),
    ("strong_weak_id", I32, true),
    ("jumped_total", I32, true),
    ("ninja_activation_tick", I32, true),
    ("freeze_start", I32, true),
    ("ddnet_target_x", I32, true),
    ("ddnet_target_y", I32, true),
    ("tune_zone_override", I32, true),
];

/// `datagrams`.
const DATAGRAMS: &[Column] = &[
    ("file", Str, false),
    ("frame", I64, false),
    ("offset", I64, false),
    ("time", F64, false),
    ("direction", Str, false),
    ("peer", Str, false),
    ("version", Str, false),
    ("bytes", I32, false),
    ("ddnet_read_as", Str, false),
    ("ddnet_accepted", Bool, false),
    ("ddnet_rule", Str, true),
    ("ddnet_reason", Str, true),
    ("teeworlds_accepted", Bool, true),
    ("teeworlds_rule", Str, true),
    ("error", Str, true),
    ("failed", Bool, false),
    ("anomalies", Str, false),
    ("snapshots", I32, false),
];

/// `check_reports`.
const REPORTS: &[Column] = &[
    ("file", Str, false),
    ("format", Str, true),
    ("compression", Str, true),
    ("status", Str, false),
    ("expected_failure", Bool, false),
    ("records", I64, true),
    ("last_tick", I32, true),
    ("roundtrip", Str, false),
    ("error", Str, true),
    ("summary", Str, false),
    ("finding", I32, true),
    ("severity", Str, true),
    ("code", Str, true),
    ("finding_offset", I64, true),
    ("finding_tick", I32, true),
    ("finding_count", I64, true),
    ("message", Str, true),
];

/// The tables, in the order [`Exporter::finish`] lists them, with their
/// columns.
pub const TABLES: [(&str, &[Column]); 10] = [
    ("teehistorian_records", RECORDS),
    ("player_states", PLAYER_STATES),
    ("demo_events", EVENTS),
    ("characters", CHARACTERS),
    ("datagrams", DATAGRAMS),
    ("check_reports", REPORTS),
    ("sessions", sessions::SESSIONS),
    ("players", sessions::PLAYERS),
    ("chat", sessions::CHAT),
    ("votes", sessions::VOTES),
];

/// Rows one file gave each table, in [`TABLES`] order.
pub type Rows = [u64; 10];

/// The ten tables being written.
pub struct Exporter {
    tables: Vec<Table>,
    /// Reused buffer for JSON text.
    buf: Vec<u8>,
    /// The players still there at the end of each teehistorian file, for
    /// the file after its map change.
    handover: sessions::Handover,
}

impl Exporter {
    /// Starts the ten tables in `dir` (which must exist).
    pub fn create(dir: &Path) -> io::Result<Exporter> {
        let tables = TABLES
            .iter()
            .map(|(name, cols)| Table::create(dir, name, cols, SCHEMA_VERSION))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Exporter {
            tables,
            buf: Vec::new(),
            handover: sessions::Handover::new(),
        })
    }

    /// Starts the tables without files: each table's row groups (the
    /// record batches its Parquet file would hold) are handed to `sink`
    /// with the table's name as they are complete.
    pub fn to_sink(sink: table::Sink) -> Exporter {
        let tables = TABLES
            .iter()
            .map(|(name, cols)| Table::to_sink(name, cols, sink.clone()))
            .collect();
        Exporter {
            tables,
            buf: Vec::new(),
            handover: sessions::Handover::new(),
        }
    }

    /// Adds the file at `path`, whose check `verdict` is given (it names
    /// the format, and is the file's `check_reports` rows): its rows in
    /// the tables of its format, everything that decodes up to where
    /// reading stops (the verdict says why). Returns the rows added to
    /// each table. An error is one writing the tables, never the input's.
    pub fn add(&mut self, path: &Path, verdict: &Verdict) -> io::Result<Rows> {
        let before: Vec<u64> = self.tables.iter().map(Table::rows).collect();
        let file = verdict.path.as_str();
        match verdict.format {
            Some("teehistorian") => self.teehistorian(path, file)?,
            Some("demo") => self.demo(path, file)?,
            Some("capture") => self.capture(path, file)?,
            _ => {}
        }
        self.report(verdict)?;
        let mut rows = [0; TABLES.len()];
        for (i, t) in self.tables.iter_mut().enumerate() {
            t.end_part()?;
            rows[i] = t.rows() - before[i];
        }
        Ok(rows)
    }

    /// Closes every table; gives each table's file and rows.
    pub fn finish(self) -> io::Result<Vec<(PathBuf, u64)>> {
        self.tables
            .into_iter()
            .map(|t| {
                let rows = t.rows();
                t.finish().map(|p| (p, rows))
            })
            .collect()
    }

    fn teehistorian(&mut self, path: &Path, file: &str) -> io::Result<()> {
        let Ok(reader) = Source::arg(path).into_reader() else {
            return Ok(());
        };
        let Ok((header, mut reader)) = StreamReader::new(reader, Mode::Lenient) else {
            return Ok(());
        };
        let [records, states, _, _, _, _, session, players, chat, votes] = &mut self.tables[..]
        else {
            return Ok(());
        };
        let buf = &mut self.buf;
        let info = &header.info;
        let mut people = sessions::People::new(file, info, &mut self.handover);
        let mut replay = Replay::new(ReplayConfig::default());
        let mut tick: Option<i32> = None;
        let flow = reader.for_each_record(|rec| {
            if tick.is_some_and(|t| t != rec.tick)
                && let Err(e) = player_rows(states, file, &replay, &people)
            {
                return ControlFlow::Break(e);
            }
            tick = Some(rec.tick);
            if let Err(e) = record_row(records, buf, file, rec) {
                return ControlFlow::Break(e);
            }
            if let Err(e) = people.record(rec, chat, votes) {
                return ControlFlow::Break(e);
            }
            // An inconsistency is the writer's; the world goes on as far
            // as the record makes sense (the check reports it).
            let _ = replay.handle(rec.offset, &rec.msg);
            ControlFlow::Continue(())
        });
        if let Ok(ControlFlow::Break(e)) = flow {
            return Err(e);
        }
        if tick.is_some() {
            player_rows(states, file, &replay, &people)?;
        }
        let finished = matches!(
            reader.end(),
            Some(crate::teehistorian::End::Finished { .. })
        );
        let ticks = people.ticks();
        let end = if finished { "finish" } else { "truncated" };
        let carried = people.finish(players, end)?;
        if let Some(game) = &info.game_uuid {
            self.handover.insert(game.clone(), carried);
        }
        sessions::teehistorian_session(session, file, info, ticks, !finished)
    }

    fn demo(&mut self, path: &Path, file: &str) -> io::Result<()> {
        use crate::demo::json::{EventWhat, for_each_event};
        let Ok(bytes) = Source::arg(path).into_bytes() else {
            return Ok(());
        };
        let Ok(mut events) = crate::demo::Events::new(&bytes) else {
            return Ok(());
        };
        let [_, _, ev, chars, _, _, session, _, chat, votes] = &mut self.tables[..] else {
            return Ok(());
        };
        let buf = &mut self.buf;
        // Seconds count from the first tick marker: a demo's ticks are the
        // server's since it started.
        let mut ticks: Option<(i32, i32)> = None;
        let end = for_each_event(&mut events, |line| {
            if line.tick >= 0 {
                let (first, _) = ticks.get_or_insert((line.tick, line.tick));
                ticks = Some((*first, line.tick));
            }
            let secs = ticks.map(|(first, _)| seconds(line.tick - first));
            let mut row = [
                V::Str(Some(file)),
                V::I64(Some(line.index as i64)),
                V::I64(Some(line.offset as i64)),
                V::I32(Some(line.tick)),
                V::F64(secs),
                V::Str(Some(line.kind)),
                V::I32(None),
                V::I32(None),
                V::Bool(None),
                V::Str(None),
                V::Bool(None),
                V::I32(None),
                V::Str(None),
            ];
            let mut json = true;
            match line.what() {
                EventWhat::Tick { keyframe } => row[8] = V::Bool(Some(keyframe)),
                EventWhat::Message(Ok(m)) => {
                    let (cid, cid2) = sessions::message_cids(m);
                    (row[6], row[7]) = (V::I32(cid), V::I32(cid2));
                    row[9] = V::Str(m.name());
                    row[10] = V::Bool(Some(m.header.sys));
                    let at = sessions::Row {
                        file,
                        tick: line.tick,
                        seconds: secs,
                        cid,
                        player: None,
                    };
                    sessions::demo_message(&at, m, chat, votes)?;
                }
                EventWhat::Message(Err(_)) | EventWhat::Fault(_) => {}
                EventWhat::Snapshot(snap) => {
                    json = false;
                    row[11] = V::I32(Some(i32::try_from(snap.items.len()).unwrap_or(i32::MAX)));
                    character_rows(chars, file, line.tick, snap)?;
                }
            }
            buf.clear();
            if json {
                serde_json::to_writer(&mut *buf, line).map_err(io::Error::other)?;
            }
            let text = String::from_utf8_lossy(buf);
            if json {
                row[12] = V::Str(Some(&text));
            }
            ev.push(&row)
        })?;
        // Cut short: a chunk cut by the end of the file, a recorder never
        // stopped, or a damaged chunk that stopped the player.
        let truncated = end.truncated_bytes.is_some()
            || end.unfinished_seconds.is_some()
            || end.error.is_some();
        sessions::demo_session(session, file, &events, ticks, truncated)
    }

    #[cfg(feature = "capture")]
    fn capture(&mut self, path: &Path, file: &str) -> io::Result<()> {
        use crate::session::{Direction, Session, server_port};
        let Ok(bytes) = Source::arg(path).into_bytes() else {
            return Ok(());
        };
        let Ok(capture) = crate::capture::read(&bytes) else {
            return Ok(());
        };
        let Some(port) = server_port(&capture) else {
            return Ok(());
        };
        let table = &mut self.tables[4];
        let mut session = Session::new(&capture, port);
        while let Some(d) = session.next_datagram() {
            let dg = d.datagram;
            let peer = d.peer.to_string();
            let version = d.version.to_string();
            let read_as = d.verdict.ddnet.read_as.to_string();
            let rule = d.verdict.ddnet.dropped;
            let reason = rule.map(|r| r.to_string());
            let tw = d.verdict.teeworlds_0_7_5;
            let error = d.packet.as_ref().err().map(ToString::to_string);
            let anomalies = serde_json::to_string(&d.anomalies).map_err(io::Error::other)?;
            table.push(&[
                V::Str(Some(file)),
                V::I64(Some(dg.frame as i64)),
                V::I64(Some(dg.offset as i64)),
                V::F64(Some(dg.time.as_secs_f64())),
                V::Str(Some(match d.direction {
                    Direction::ToServer => "to_server",
                    Direction::ToClient => "to_client",
                })),
                V::Str(Some(&peer)),
                V::Str(Some(&version)),
                V::I32(Some(i32::try_from(dg.payload.len()).unwrap_or(i32::MAX))),
                V::Str(Some(&read_as)),
                V::Bool(Some(rule.is_none())),
                V::Str(rule.map(|r| r.code())),
                V::Str(reason.as_deref()),
                V::Bool(tw.map(|t| t.accepted())),
                V::Str(tw.and_then(|t| t.dropped).map(|r| r.code())),
                V::Str(error.as_deref()),
                V::Bool(Some(d.failed())),
                V::Str(Some(&anomalies)),
                V::I32(Some(i32::try_from(d.snapshots.len()).unwrap_or(i32::MAX))),
            ])?;
        }
        Ok(())
    }

    #[cfg(not(feature = "capture"))]
    fn capture(&mut self, _: &Path, _: &str) -> io::Result<()> {
        Ok(())
    }

    fn report(&mut self, v: &Verdict) -> io::Result<()> {
        let table = &mut self.tables[5];
        let compression = v.compression.map(|c| c.name());
        let error = v.error.as_ref().map(ToString::to_string);
        let roundtrip = match v.roundtrip {
            crate::check::RoundTrip::Exact => "exact",
            crate::check::RoundTrip::Differs { .. } => "differs",
            crate::check::RoundTrip::NotChecked => "not_checked",
        };
        let status = serde_json::to_value(v.status).map_err(io::Error::other)?;
        let file = [
            V::Str(Some(&v.path)),
            V::Str(v.format),
            V::Str(compression),
            V::Str(status.as_str()),
            V::Bool(Some(v.expected_failure)),
            V::I64(v.counts.records.map(|n| n as i64)),
            V::I32(v.counts.last_tick),
            V::Str(Some(roundtrip)),
            V::Str(error.as_deref()),
            V::Str(Some(&v.summary)),
        ];
        if v.findings.is_empty() {
            let mut row = file.to_vec();
            row.extend(REPORTS[file.len()..].iter().map(|&(_, t, _)| null(t)));
            return table.push(&row);
        }
        for (i, f) in v.findings.iter().enumerate() {
            let severity = serde_json::to_value(f.severity).map_err(io::Error::other)?;
            let mut row = file.to_vec();
            row.extend([
                V::I32(Some(i32::try_from(i).unwrap_or(i32::MAX))),
                V::Str(severity.as_str()),
                V::Str(Some(f.code.as_str())),
                V::I64(f.offset.map(|o| o as i64)),
                V::I32(f.tick),
                V::I64(f.count.map(|c| c as i64)),
                V::Str(Some(&f.message)),
            ]);
            table.push(&row)?;
        }
        Ok(())
    }
}

/// A null of type `t`.
fn null(t: Type) -> V<'static> {
    match t {
        I32 => V::I32(None),
        I64 => V::I64(None),
        F64 => V::F64(None),
        Bool => V::Bool(None),
        Str => V::Str(None),
    }
}

/// One `teehistorian_records` row: the records most of a file is made
/// of (canonical player, input, join, tick-skip and FINISH records) in
/// typed columns, every other one as its `dump` line.
fn record_row(
    table: &mut Table,
    buf: &mut Vec<u8>,
    file: &str,
    rec: &Record<'_>,
) -> io::Result<()> {
    use crate::teehistorian::Message;
    let [cid, cid2] = rec.msg.cids();
    let mut row = [V::I32(None); 23];
    row[0] = V::Str(Some(file));
    row[1] = V::I64(Some(rec.offset as i64));
    row[2] = V::I32(Some(rec.tick));
    row[3] = V::Str(Some(rec.msg.kind_name()));
    row[4] = V::I32(cid);
    row[5] = V::I32(cid2);
    row[6] = V::I32(Some(i32::try_from(rec.raw.len()).unwrap_or(i32::MAX)));
    row[22] = V::Str(None);
    let typed = !rec.noncanonical
        && match &rec.msg {
            Message::PlayerDiff { dx, dy, .. } => {
                (row[7], row[8]) = (V::I32(Some(*dx)), V::I32(Some(*dy)));
                true
            }
            Message::PlayerNew { x, y, .. } => {
                (row[9], row[10]) = (V::I32(Some(*x)), V::I32(Some(*y)));
                true
            }
            Message::TickSkip { dt } => {
                row[11] = V::I32(Some(*dt));
                true
            }
            Message::InputNew { input, .. } | Message::InputDiff { dinput: input, .. } => {
                for (slot, v) in row[12..22].iter_mut().zip(input.iter()) {
                    *slot = V::I32(Some(*v));
                }
                true
            }
            Message::PlayerOld { .. } | Message::Join { .. } | Message::Finish => true,
            _ => false,
        };
    if typed {
        return table.push(&row);
    }
    buf.clear();
    if !RecordLine::write_common(rec, buf)? {
        serde_json::to_writer(&mut *buf, &RecordLine::new(rec)).map_err(io::Error::other)?;
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    let text = String::from_utf8_lossy(buf);
    row[22] = V::Str(Some(&text));
    table.push(&row)
}

/// The `player_states` rows of the world at the end of its tick: every
/// player connected or with a character.
fn player_rows(
    table: &mut Table,
    file: &str,
    replay: &Replay,
    people: &sessions::People<'_>,
) -> io::Result<()> {
    let tick = replay.tick();
    for p in replay.players().filter(|p| p.connected || p.alive) {
        // PLAYER_NAME, else what the player's session knows (a player
        // carried over a map change has no PLAYER_NAME in the new file).
        let name = match &p.name {
            Some(n) => Some(String::from_utf8_lossy(&n.0)),
            None => people.name(p.cid).map(std::borrow::Cow::Borrowed),
        };
        let protocol = p.protocol.map(|v| v.to_string());
        let input = p.input;
        let pos = |v: i32| V::I32(p.alive.then_some(v));
        let inp = |f: fn(&crate::teehistorian::PlayerInput) -> i32| V::I32(input.as_ref().map(f));
        table.push(&[
            V::Str(Some(file)),
            V::I32(Some(tick)),
            V::F64(Some(seconds(tick))),
            V::I32(Some(p.cid)),
            V::Str(people.key(p.cid)),
            V::Str(name.as_deref()),
            V::I32(Some(p.team)),
            V::Bool(Some(p.connected)),
            V::Bool(Some(p.alive)),
            V::I32(people.life(p.cid).filter(|_| p.alive)),
            pos(p.x),
            pos(p.y),
            inp(|i| i.direction),
            inp(|i| i.target_x),
            inp(|i| i.target_y),
            inp(|i| i.jump),
            inp(|i| i.fire),
            inp(|i| i.hook),
            inp(|i| i.player_flags),
            inp(|i| i.wanted_weapon),
            inp(|i| i.next_weapon),
            inp(|i| i.prev_weapon),
            V::Str(protocol.as_deref()),
            V::I32(p.ddnet_version),
            V::I32(p.auth.as_ref().map(|a| a.level)),
        ])?;
    }
    Ok(())
}

/// The `characters` rows of one snapshot: each Character item, with the
/// DDNetCharacter and ClientInfo items of the same id.
fn character_rows(
    table: &mut Table,
    file: &str,
    tick: i32,
    snap: &crate::snapshot::items::SnapshotJson<'_>,
) -> io::Result<()> {
    let int = |fields: &[crate::snapshot::items::Field], name: &str| {
        fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| match f.value {
                Value::Int(v) => Some(v),
                _ => None,
            })
    };
    for item in snap
        .items
        .iter()
        .filter(|i| i.view.type_name == "Character")
    {
        let of_type = |t: &str| {
            snap.items
                .iter()
                .find(|i| i.id == item.id && i.view.type_name == t)
        };
        let ddnet = of_type("DDNetCharacter");
        let name = of_type("ClientInfo").and_then(|i| {
            i.view
                .fields
                .iter()
                .find(|f| f.name == "name")
                .and_then(|f| match &f.value {
                    Value::Text(s) => Some(s.as_str()),
                    _ => None,
                })
        });
        let mut row = vec![
            V::Str(Some(file)),
            V::I32(Some(tick)),
            V::I32(Some(item.id)),
            V::Str(name),
        ];
        row.extend(
            CHARACTER_FIELDS
                .iter()
                .map(|n| V::I32(int(&item.view.fields, n))),
        );
        row.extend(
            DDNET_FIELDS
                .iter()
                .map(|n| V::I32(ddnet.and_then(|d| int(&d.view.fields, n)))),
        );
        table.push(&row)?;
    }
    Ok(())
}
