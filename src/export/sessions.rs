//! The tables that say who played where and what they said: `sessions`
//! (one row per recording: its header and extent), `players` (one row
//! per player session), `chat` and `votes`, and the player key that joins
//! them with `player_states`.
//!
//! A client id is reused: the `players` table cuts a file's records into
//! player sessions (a cid from its JOIN, or its first record when the file
//! never recorded one, to its DROP or the end of the file) and gives each
//! a key, `player`, that the other tables carry. A player carried over a
//! map change keeps the key it had in the previous file (see
//! [`People::open`] for the rule).

use super::table::{Column, Table, Type, V};
use crate::packet::Version;
use crate::packet::msg::{Fields, client_info};
use crate::teehistorian::{HeaderInfo, Message, Record};
use std::collections::BTreeMap;
use std::io;

use Type::{Bool, F64, I32, I64, Str};

/// Server ticks per second (DDNet's `SERVER_TICK_SPEED`).
pub const TICKS_PER_SECOND: i32 = 50;

/// `ticks` in seconds.
pub fn seconds(ticks: i32) -> f64 {
    f64::from(ticks) / f64::from(TICKS_PER_SECOND)
}

/// `sessions`.
pub(super) const SESSIONS: &[Column] = &[
    ("file", Str, false),
    ("format", Str, false),
    ("version", I32, false),
    ("version_minor", Str, true),
    ("server_version", Str, true),
    ("net_version", Str, true),
    ("game_uuid", Str, true),
    ("prev_game_uuid", Str, true),
    ("start_time", Str, true),
    ("server_name", Str, true),
    ("server_port", Str, true),
    ("game_type", Str, true),
    ("map_name", Str, true),
    ("map_crc", Str, true),
    ("map_sha256", Str, true),
    ("map_size", I64, true),
    ("demo_type", Str, true),
    ("demo_length", I32, true),
    ("truncated", Bool, false),
    ("first_tick", I32, true),
    ("last_tick", I32, true),
    ("ticks", I32, true),
    ("seconds", F64, true),
];

/// `players`.
pub(super) const PLAYERS: &[Column] = &[
    ("file", Str, false),
    ("session", I32, false),
    ("player", Str, false),
    ("cid", I32, false),
    ("start_tick", I32, false),
    ("end_tick", I32, false),
    ("seconds", F64, false),
    ("start", Str, false),
    ("end", Str, false),
    ("drop_reason", Str, true),
    ("carried_from", Str, true),
    ("name", Str, true),
    ("name_from", Str, true),
    ("clan", Str, true),
    ("country", I32, true),
];

/// `chat`.
pub(super) const CHAT: &[Column] = &[
    ("file", Str, false),
    ("tick", I32, false),
    ("seconds", F64, true),
    ("cid", I32, true),
    ("player", Str, true),
    ("mode", Str, false),
    ("target_cid", I32, true),
    ("source", Str, false),
    ("text", Str, false),
];

/// `votes`.
pub(super) const VOTES: &[Column] = &[
    ("file", Str, false),
    ("tick", I32, false),
    ("seconds", F64, true),
    ("cid", I32, true),
    ("player", Str, true),
    ("kind", Str, false),
    ("source", Str, false),
    ("type", Str, true),
    ("value", Str, true),
    ("reason", Str, true),
    ("vote", I32, true),
    ("yes", I32, true),
    ("no", I32, true),
    ("pass", I32, true),
    ("total", I32, true),
    ("timeout", I32, true),
];

/// `CFGFLAG_CHAT`: a console command typed in the chat.
const CHAT_COMMAND: i32 = 128;

/// The chat commands that whisper.
const WHISPERS: [&str; 4] = ["w", "whisper", "c", "converse"];

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a player session that was still there at the end of its file
/// hands to the next file of the same server (the one whose
/// `prev_game_uuid` is this file's `game_uuid`).
#[derive(Clone, Debug)]
pub(super) struct Carried {
    file: String,
    key: String,
    name: Option<String>,
    clan: Option<String>,
    country: Option<i32>,
    lives: i32,
}

/// Carried-over players by the `game_uuid` of the file they were in, by
/// cid.
pub(super) type Handover = BTreeMap<String, BTreeMap<i32, Carried>>;

/// One player session.
struct Session {
    ordinal: i32,
    key: String,
    cid: i32,
    start_tick: i32,
    end_tick: i32,
    start: &'static str,
    end: &'static str,
    drop_reason: Option<String>,
    carried_from: Option<String>,
    /// The last PLAYER_NAME.
    recorded_name: Option<String>,
    /// The last `Cl_StartInfo` or `Cl_ChangeInfo` name.
    info_name: Option<String>,
    /// The previous file's name.
    carried_name: Option<String>,
    clan: Option<String>,
    country: Option<i32>,
    /// PLAYER_NEW records so far: the character's life.
    lives: i32,
}

impl Session {
    /// The name, and what it is taken from.
    fn name(&self) -> (Option<&str>, Option<&'static str>) {
        match (&self.recorded_name, &self.info_name, &self.carried_name) {
            (Some(n), _, _) => (Some(n), Some("player_name")),
            (None, Some(n), _) => (Some(n), Some("start_info")),
            (None, None, Some(n)) => (Some(n), Some("previous_file")),
            (None, None, None) => (None, None),
        }
    }
}

/// The player sessions of one teehistorian file, as its records go by.
pub(super) struct People<'f> {
    file: &'f str,
    /// The key's prefix: the file's `game_uuid`, or its name without one.
    game: String,
    /// The file follows a map change (its header has a `prev_game_uuid`).
    after_map_change: bool,
    /// The previous file's players still there at its end, by cid.
    carried_in: BTreeMap<i32, Carried>,
    first_tick: Option<i32>,
    last_tick: i32,
    open: BTreeMap<i32, Session>,
    closed: Vec<Session>,
    /// Each cid's last closed session, in `closed` (a character outlives
    /// its DROP by a tick, with rows in `player_states`).
    last_closed: BTreeMap<i32, usize>,
    next: i32,
}

impl<'f> People<'f> {
    /// Starts a file: `handover` gives it the players of the file before
    /// it, when that one was exported first.
    pub(super) fn new(file: &'f str, info: &HeaderInfo, handover: &mut Handover) -> Self {
        let carried_in = info
            .prev_game_uuid
            .as_ref()
            .and_then(|u| handover.remove(u))
            .unwrap_or_default();
        People {
            file,
            game: info.game_uuid.clone().unwrap_or_else(|| file.to_string()),
            after_map_change: info.prev_game_uuid.is_some(),
            carried_in,
            first_tick: None,
            last_tick: 0,
            open: BTreeMap::new(),
            closed: Vec::new(),
            last_closed: BTreeMap::new(),
            next: 0,
        }
    }

    /// The key of `cid`'s current (or last) session.
    pub(super) fn key(&self, cid: i32) -> Option<&str> {
        self.session(cid).map(|s| s.key.as_str())
    }

    /// The life of `cid`'s character in its session: 1 from its first
    /// PLAYER_NEW on, counted on from the previous file's for a session
    /// carried over a map change.
    pub(super) fn life(&self, cid: i32) -> Option<i32> {
        self.session(cid).map(|s| s.lives).filter(|&n| n > 0)
    }

    /// The name of `cid`'s current (or last) session, as in `players`.
    pub(super) fn name(&self, cid: i32) -> Option<&str> {
        self.session(cid)?.name().0
    }

    /// `cid`'s open session, or its last one.
    fn session(&self, cid: i32) -> Option<&Session> {
        let last = || self.closed.get(*self.last_closed.get(&cid)?);
        self.open.get(&cid).or_else(last)
    }

    /// The first and last ticks seen.
    pub(super) fn ticks(&self) -> Option<(i32, i32)> {
        self.first_tick.map(|f| (f, self.last_tick))
    }

    /// Opens a session of `cid` at `tick`: at its JOIN (`joined`) or at the
    /// first record of a client the file never saw join.
    ///
    /// The rule of a map change: a session is *carried* over when the
    /// client was on the server before the file began: DDNet 20.1 records
    /// a JOIN for each such client before the first tick of the file after
    /// a map change (whose header has `prev_game_uuid`), and DDNet 16.4
    /// records none (its first record of the client is then another one).
    /// A carried session continues the session of the same cid that was
    /// still there at the end of the previous file (the one whose
    /// `game_uuid` is this file's `prev_game_uuid`), if that file was
    /// exported before this one: it keeps that session's key and counts
    /// its lives on, and takes its name, clan and country where this file
    /// records none.
    fn open(&mut self, cid: i32, tick: i32, joined: bool) {
        let at_start = self.after_map_change && Some(tick) == self.first_tick;
        let carried = !joined || at_start;
        let from = carried.then(|| self.carried_in.remove(&cid)).flatten();
        let ordinal = self.next;
        self.next += 1;
        let key = match &from {
            Some(c) => c.key.clone(),
            None => format!("{}/{ordinal}", self.game),
        };
        let session = Session {
            ordinal,
            key,
            cid,
            start_tick: tick,
            end_tick: tick,
            start: if carried { "carried" } else { "join" },
            end: "",
            drop_reason: None,
            carried_from: from.as_ref().map(|c| c.file.clone()),
            recorded_name: None,
            info_name: None,
            carried_name: from.as_ref().and_then(|c| c.name.clone()),
            clan: from.as_ref().and_then(|c| c.clan.clone()),
            country: from.as_ref().and_then(|c| c.country),
            lives: from.as_ref().map_or(0, |c| c.lives),
        };
        self.open.insert(cid, session);
    }

    fn close(&mut self, cid: i32, tick: i32, end: &'static str) -> Option<&mut Session> {
        let mut s = self.open.remove(&cid)?;
        s.end_tick = tick;
        s.end = end;
        self.last_closed.insert(cid, self.closed.len());
        self.closed.push(s);
        self.closed.last_mut()
    }

    /// The open session of `cid`, opened by this record (one only a
    /// client in the game makes) if there is none.
    fn present(&mut self, cid: i32, tick: i32) -> Option<&mut Session> {
        if !self.open.contains_key(&cid) {
            self.open(cid, tick, false);
        }
        self.open.get_mut(&cid)
    }

    /// Follows one record: sessions open and close, names, and the
    /// record's `chat` and `votes` rows.
    pub(super) fn record(
        &mut self,
        rec: &Record<'_>,
        chat: &mut Table,
        votes: &mut Table,
    ) -> io::Result<()> {
        let tick = rec.tick;
        self.first_tick.get_or_insert(tick);
        self.last_tick = tick;
        match &rec.msg {
            Message::Join { cid } => {
                self.close(*cid, tick, "rejoin");
                self.open(*cid, tick, true);
            }
            Message::Drop { cid, reason } => {
                self.present(*cid, tick);
                if let Some(s) = self.close(*cid, tick, "drop") {
                    s.drop_reason = Some(text(reason));
                }
            }
            Message::NetMessage { cid, data } if *cid >= 0 => {
                let info = client_info(rec.protocol, data);
                let s = self.present(*cid, tick);
                if let (Some(s), Some(info)) = (s, info) {
                    s.info_name = Some(text(&info.name));
                    s.clan = Some(text(&info.clan));
                    s.country = Some(info.country);
                }
                self.net_message(rec, *cid, chat, votes)?;
            }
            Message::ConsoleCommand(c) => {
                if c.cid >= 0 {
                    self.present(c.cid, tick);
                }
                self.console_command(rec, c, chat, votes)?;
            }
            Message::PlayerNew { cid, .. } => {
                if let Some(s) = self.present(*cid, tick) {
                    s.lives += 1;
                }
            }
            Message::InputNew { cid, .. } | Message::InputDiff { cid, .. } => {
                self.present(*cid, tick);
            }
            Message::Ex(ex) => {
                use crate::teehistorian::Ex;
                match &ex.ex {
                    Ex::PlayerName { cid, name } => {
                        if let Some(s) = self.present(*cid, tick) {
                            s.recorded_name = Some(text(name));
                        }
                    }
                    Ex::PlayerReady { cid }
                    | Ex::Ddnetver { cid, .. }
                    | Ex::DdnetverOld { cid, .. }
                    | Ex::AuthInit { cid, .. }
                    | Ex::AuthLogin { cid, .. } => {
                        self.present(*cid, tick);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn net_message(
        &self,
        rec: &Record<'_>,
        cid: i32,
        chat: &mut Table,
        votes: &mut Table,
    ) -> io::Result<()> {
        let Some(Ok(m)) = crate::teehistorian::json::client_message(rec) else {
            return Ok(());
        };
        let Some(Ok(f)) = &m.fields else {
            return Ok(());
        };
        let at = Row {
            file: self.file,
            tick: rec.tick,
            seconds: Some(seconds(rec.tick)),
            cid: Some(cid),
            player: self.key(cid),
        };
        match m.name() {
            Some("Cl_Say") => {
                let (mode, target) = match m.version {
                    Version::V06 => (say_mode_06(f.int("team")), None),
                    Version::V07 => say_mode_07(f),
                };
                let said = text(f.text("message").unwrap_or_default());
                at.chat(chat, mode, target, "Cl_Say", &said)
            }
            Some("Cl_CallVote") => {
                let s = |n| f.text(n).map(text);
                let vote = Vote {
                    kind: "call",
                    source: "Cl_CallVote",
                    kind_of: s("type"),
                    value: s("value"),
                    reason: s("reason"),
                    ..Vote::default()
                };
                at.vote(votes, &vote)
            }
            Some("Cl_Vote") => {
                let vote = Vote {
                    kind: "cast",
                    source: "Cl_Vote",
                    vote: f.int("vote"),
                    ..Vote::default()
                };
                at.vote(votes, &vote)
            }
            _ => Ok(()),
        }
    }

    fn console_command(
        &self,
        rec: &Record<'_>,
        c: &crate::teehistorian::ConsoleCommand<'_>,
        chat: &mut Table,
        votes: &mut Table,
    ) -> io::Result<()> {
        let cid = (c.cid >= 0).then_some(c.cid);
        let at = Row {
            file: self.file,
            tick: rec.tick,
            seconds: Some(seconds(rec.tick)),
            cid,
            player: cid.and_then(|c| self.key(c)),
        };
        let cmd = text(&c.cmd);
        let args: Vec<String> = c.args.iter().map(|a| text(a)).collect();
        let arg = |i: usize| args.get(i).cloned();
        if c.flags & CHAT_COMMAND != 0 {
            // The command as typed, up to the spacing DDNet parsed away.
            let mut line = format!("/{cmd}");
            for a in &args {
                line.push(' ');
                line.push_str(a);
            }
            let mode = match WHISPERS.contains(&cmd.as_str()) {
                true => "whisper",
                false => "command",
            };
            return at.chat(chat, mode, None, "console_command", &line);
        }
        match cmd.as_str() {
            "say" => at.chat(chat, "server", None, "console_command", &args.join(" ")),
            "vote" => {
                let vote = Vote {
                    kind: "force",
                    source: "console_command",
                    value: arg(0),
                    ..Vote::default()
                };
                at.vote(votes, &vote)
            }
            "force_vote" => {
                let vote = Vote {
                    kind: "force_call",
                    source: "console_command",
                    kind_of: arg(0),
                    value: arg(1),
                    reason: arg(2),
                    ..Vote::default()
                };
                at.vote(votes, &vote)
            }
            _ => Ok(()),
        }
    }

    /// Closes the sessions still open at the end of the file (`end`:
    /// `finish` or `truncated`), writes every session's `players` row in
    /// order, and gives what the next file of the server takes over.
    pub(super) fn finish(
        mut self,
        table: &mut Table,
        end: &'static str,
    ) -> io::Result<BTreeMap<i32, Carried>> {
        let (last, file) = (self.last_tick, self.file);
        let still: Vec<i32> = self.open.keys().copied().collect();
        let mut carried = BTreeMap::new();
        for cid in still {
            if let Some(s) = self.close(cid, last, end) {
                let (name, _) = s.name();
                carried.insert(
                    cid,
                    Carried {
                        file: file.to_string(),
                        key: s.key.clone(),
                        name: name.map(str::to_string),
                        clan: s.clan.clone(),
                        country: s.country,
                        lives: s.lives,
                    },
                );
            }
        }
        self.closed.sort_by_key(|s| s.ordinal);
        for s in &self.closed {
            let (name, name_from) = s.name();
            table.push(&[
                V::Str(Some(self.file)),
                V::I32(Some(s.ordinal)),
                V::Str(Some(&s.key)),
                V::I32(Some(s.cid)),
                V::I32(Some(s.start_tick)),
                V::I32(Some(s.end_tick)),
                V::F64(Some(seconds(s.end_tick - s.start_tick))),
                V::Str(Some(s.start)),
                V::Str(Some(s.end)),
                V::Str(s.drop_reason.as_deref()),
                V::Str(s.carried_from.as_deref()),
                V::Str(name),
                V::Str(name_from),
                V::Str(s.clan.as_deref()),
                V::I32(s.country),
            ])?;
        }
        Ok(carried)
    }
}

/// 0.6 `Cl_Say`'s `team`: 1 to the team.
fn say_mode_06(team: Option<i32>) -> &'static str {
    match team {
        Some(0) => "all",
        _ => "team",
    }
}

/// 0.7 `Cl_Say`'s `mode` (1 all, 2 team, 3 whisper) and `target`.
fn say_mode_07(f: &Fields<'_>) -> (&'static str, Option<i32>) {
    match f.int("mode") {
        Some(2) => ("team", None),
        Some(3) => ("whisper", f.int("target")),
        _ => ("all", None),
    }
}

/// What the rows of a `chat` or `votes` line share.
pub(super) struct Row<'a> {
    pub(super) file: &'a str,
    pub(super) tick: i32,
    pub(super) seconds: Option<f64>,
    pub(super) cid: Option<i32>,
    pub(super) player: Option<&'a str>,
}

/// A `votes` row's own columns.
#[derive(Default)]
pub(super) struct Vote {
    kind: &'static str,
    source: &'static str,
    kind_of: Option<String>,
    value: Option<String>,
    reason: Option<String>,
    vote: Option<i32>,
    yes: Option<i32>,
    no: Option<i32>,
    pass: Option<i32>,
    total: Option<i32>,
    timeout: Option<i32>,
}

impl Row<'_> {
    fn chat(
        &self,
        table: &mut Table,
        mode: &str,
        target: Option<i32>,
        source: &str,
        said: &str,
    ) -> io::Result<()> {
        table.push(&[
            V::Str(Some(self.file)),
            V::I32(Some(self.tick)),
            V::F64(self.seconds),
            V::I32(self.cid),
            V::Str(self.player),
            V::Str(Some(mode)),
            V::I32(target),
            V::Str(Some(source)),
            V::Str(Some(said)),
        ])
    }

    fn vote(&self, table: &mut Table, v: &Vote) -> io::Result<()> {
        table.push(&[
            V::Str(Some(self.file)),
            V::I32(Some(self.tick)),
            V::F64(self.seconds),
            V::I32(self.cid),
            V::Str(self.player),
            V::Str(Some(v.kind)),
            V::Str(Some(v.source)),
            V::Str(v.kind_of.as_deref()),
            V::Str(v.value.as_deref()),
            V::Str(v.reason.as_deref()),
            V::I32(v.vote),
            V::I32(v.yes),
            V::I32(v.no),
            V::I32(v.pass),
            V::I32(v.total),
            V::I32(v.timeout),
        ])
    }
}

/// The clients a demo's message is about: its `client_id` (the chat's
/// sender, the emoticon's player; for a kill, the victim), and a second
/// one (a kill's killer, a 0.7 whisper's target).
pub(super) fn message_cids(m: &crate::packet::Message<'_>) -> (Option<i32>, Option<i32>) {
    let Some(Ok(f)) = &m.fields else {
        return (None, None);
    };
    match m.name() {
        Some("Sv_KillMsg") => (f.int("victim"), f.int("killer")),
        Some("Sv_Chat") => (
            f.int("client_id").filter(|&c| c >= 0),
            f.int("target_id").filter(|&c| c >= 0),
        ),
        _ => (f.int("client_id").filter(|&c| c >= 0), None),
    }
}

/// The `chat` and `votes` rows of a demo's message (`Sv_Chat`,
/// `Sv_VoteSet`, `Sv_VoteStatus`).
pub(super) fn demo_message(
    at: &Row<'_>,
    m: &crate::packet::Message<'_>,
    chat: &mut Table,
    votes: &mut Table,
) -> io::Result<()> {
    let Some(Ok(f)) = &m.fields else {
        return Ok(());
    };
    match m.name() {
        Some("Sv_Chat") => {
            let said = text(f.text("message").unwrap_or_default());
            let server = f.int("client_id").is_none_or(|c| c < 0);
            let (mode, target) = match m.version {
                // DDNet's 0.6 team: 0 all, 1 team, 2 and 3 a whisper sent
                // and received.
                Version::V06 => match f.int("team") {
                    _ if server => ("server", None),
                    Some(1) => ("team", None),
                    Some(2 | 3) => ("whisper", None),
                    _ => ("all", None),
                },
                // 0.7's mode: 1 all, 2 team, 3 whisper.
                Version::V07 => match f.int("mode") {
                    _ if server => ("server", None),
                    Some(2) => ("team", None),
                    Some(3) => ("whisper", f.int("target_id")),
                    _ => ("all", None),
                },
            };
            at.chat(chat, mode, target, "Sv_Chat", &said)
        }
        Some("Sv_VoteSet") => {
            let s = |n| f.text(n).map(text);
            let vote = Vote {
                kind: "set",
                source: "Sv_VoteSet",
                value: s("description"),
                reason: s("reason"),
                timeout: f.int("timeout"),
                ..Vote::default()
            };
            at.vote(votes, &vote)
        }
        Some("Sv_VoteStatus") => {
            let vote = Vote {
                kind: "status",
                source: "Sv_VoteStatus",
                yes: f.int("yes"),
                no: f.int("no"),
                pass: f.int("pass"),
                total: f.int("total"),
                ..Vote::default()
            };
            at.vote(votes, &vote)
        }
        _ => Ok(()),
    }
}

/// A teehistorian file's `sessions` row.
pub(super) fn teehistorian_session(
    table: &mut Table,
    file: &str,
    info: &HeaderInfo,
    ticks: Option<(i32, i32)>,
    truncated: bool,
) -> io::Result<()> {
    fn s(v: &Option<String>) -> V<'_> {
        V::Str(v.as_deref())
    }
    let size = info.map_size.as_ref().and_then(|s| s.parse::<i64>().ok());
    let mut row = vec![
        V::Str(Some(file)),
        V::Str(Some("teehistorian")),
        V::I32(Some(i32::try_from(info.version).unwrap_or(i32::MAX))),
        s(&info.version_minor),
        s(&info.server_version),
        V::Str(None),
        s(&info.game_uuid),
        s(&info.prev_game_uuid),
        s(&info.start_time),
        s(&info.server_name),
        s(&info.server_port),
        s(&info.game_type),
        s(&info.map_name),
        s(&info.map_crc),
        s(&info.map_sha256),
        V::I64(size),
        V::Str(None),
        V::I32(None),
    ];
    extent(&mut row, ticks, truncated);
    table.push(&row)
}

/// A demo's `sessions` row.
pub(super) fn demo_session(
    table: &mut Table,
    file: &str,
    events: &crate::demo::Events<'_>,
    ticks: Option<(i32, i32)>,
    truncated: bool,
) -> io::Result<()> {
    let h = events.header();
    let t = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let net_version = t(h.net_version.bytes());
    let map_name = t(h.map_name.bytes());
    let kind = t(h.kind.bytes());
    let timestamp = t(h.timestamp.bytes());
    let crc = format!("{:08x}", h.map_crc);
    let sha = events.map_sha256().map(|s| hex::encode(s.0));
    let mut row = vec![
        V::Str(Some(file)),
        V::Str(Some("demo")),
        V::I32(Some(h.version.into())),
        V::Str(None),
        V::Str(None),
        V::Str(Some(&net_version)),
        V::Str(None),
        V::Str(None),
        V::Str(Some(&timestamp)),
        V::Str(None),
        V::Str(None),
        V::Str(None),
        V::Str(Some(&map_name)),
        V::Str(Some(&crc)),
        V::Str(sha.as_deref()),
        V::I64(Some(h.map_size.into())),
        V::Str(Some(&kind)),
        V::I32(Some(i32::try_from(h.length).unwrap_or(i32::MAX))),
    ];
    extent(&mut row, ticks, truncated);
    table.push(&row)
}

/// The columns from `truncated` on.
fn extent(row: &mut Vec<V<'_>>, ticks: Option<(i32, i32)>, truncated: bool) {
    let span = ticks.map(|(first, last)| last - first);
    row.extend([
        V::Bool(Some(truncated)),
        V::I32(ticks.map(|t| t.0)),
        V::I32(ticks.map(|t| t.1)),
        V::I32(span),
        V::F64(span.map(seconds)),
    ]);
}
