//! Who played in a recording: each client's stay (a session, from its
//! JOIN to its DROP), the name it played under, and the race events its
//! records say. One pass over the file's records; positions are read in
//! a second pass ([`super::paths`]).

use super::Fault;
use super::events::{RaceEvent, SaveHow, What};
use crate::bytes::Text;
use crate::codec::Mode;
use crate::packet::msg::{client_info, split};
use crate::teehistorian::{Ex, Header, Message, SliceReader};
use serde::Serialize;
use std::collections::BTreeMap;

/// The most sessions (joins) a file may hold.
pub const MAX_SESSIONS: usize = 1 << 16;
/// The most race events a file may hold, over all its players.
pub const MAX_EVENTS: usize = 1 << 20;

/// The extension whose registration in a header says its server records
/// finishes (DDNet 20.1 registers it; 16.4 has no such record).
pub const PLAYER_FINISH_UUID_NAME: &str = "teehistorian-player-finish@ddnet.org";

/// Who a player is across two files: the name it played under and which
/// join of that name it is (1: the first).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PlayerKey {
    /// The name (PLAYER_NAME, else the client's first `Cl_StartInfo` or
    /// `Cl_ChangeInfo`); `null` when the file never says it.
    pub name: Option<Text<'static>>,
    /// The k-th session of this name, in the order sessions began.
    pub join: u32,
}

/// One client's stay in the game.
#[derive(Clone, Debug)]
pub struct Session {
    /// Its client id.
    pub cid: i32,
    /// The tick it began: its JOIN, or the first record about a client the
    /// file never saw join (a client a map change carried over).
    pub start: i32,
    /// It began with a JOIN.
    joined: bool,
    /// The first PLAYER_NAME of the stay.
    player_name: Option<Text<'static>>,
    /// The name of its first `Cl_StartInfo` or `Cl_ChangeInfo`.
    info_name: Option<Text<'static>>,
    /// What happened to it, in record order (then [`super::events::sort`]).
    pub events: Vec<RaceEvent>,
}

impl Session {
    /// The name it played under: the server's (PLAYER_NAME, 20.1) where
    /// the file has one, else what the client asked for (16.4 writes no
    /// PLAYER_NAME).
    pub fn name(&self) -> Option<&Text<'static>> {
        self.player_name.as_ref().or(self.info_name.as_ref())
    }
}

/// What the header says about the recording, as the comparison shows it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HeaderSummary {
    /// `server_version`.
    pub server_version: Option<String>,
    /// `map_name`.
    pub map_name: Option<String>,
    /// `map_sha256`.
    pub map_sha256: Option<String>,
}

/// A file's players.
#[derive(Clone, Debug)]
pub struct Roster {
    /// Every session, in the order they began.
    pub sessions: Vec<Session>,
    /// Each session's key, by index.
    pub keys: Vec<PlayerKey>,
    /// Session indices by client id, in order.
    by_cid: BTreeMap<i32, Vec<usize>>,
    /// The first and last tick of the file's records.
    pub ticks: Option<(i32, i32)>,
    /// The header.
    pub header: HeaderSummary,
    /// The header registers PLAYER_FINISH: its server records finishes.
    pub finish_recorded: bool,
    /// Race events held, over all sessions.
    events: usize,
}

/// Builds a [`Roster`] record by record.
struct Reader {
    roster: Roster,
    /// The session each client id is in now.
    current: BTreeMap<i32, usize>,
    /// Each client's DDRace team now (PLAYER_TEAM).
    teams: BTreeMap<i32, i32>,
}

impl Roster {
    /// Reads `bytes`' records (a teehistorian file). A record that does
    /// not decode is an error naming its byte.
    pub fn read(bytes: &[u8]) -> Result<Roster, Fault> {
        let (header, records) = SliceReader::new(bytes, Mode::Lenient)?;
        let mut r = Reader::new(&header);
        for rec in records {
            let rec = rec?;
            r.record(rec.tick, &rec.msg, rec.protocol)?;
        }
        Ok(r.done())
    }

    /// The session `cid`'s character belongs to at `tick` (its file's
    /// numbering): the last one it began by then.
    pub fn session_at(&self, cid: i32, tick: i32) -> Option<usize> {
        let list = self.by_cid.get(&cid)?;
        let n = list.partition_point(|&i| self.sessions[i].start <= tick);
        n.checked_sub(1).map(|k| list[k])
    }

    /// The tick the first session began (the default alignment).
    pub fn first_start(&self) -> Option<i32> {
        self.sessions.first().map(|s| s.start)
    }

    /// Adds an event to session `i`, within the file's bound.
    pub fn push_event(&mut self, i: usize, event: RaceEvent) -> Result<(), Fault> {
        if self.events >= MAX_EVENTS {
            return Err(Fault::TooMany {
                what: "race events",
                max: MAX_EVENTS,
            });
        }
        self.events += 1;
        self.sessions[i].events.push(event);
        Ok(())
    }

    /// The same players with no events: the model's side of a file, whose
    /// events are the model's own.
    pub fn without_events(&self) -> Roster {
        let mut r = self.clone();
        for s in &mut r.sessions {
            s.events.clear();
        }
        r.events = 0;
        r
    }
}

impl Reader {
    fn new(header: &Header) -> Reader {
        let info = &header.info;
        Reader {
            roster: Roster {
                sessions: Vec::new(),
                keys: Vec::new(),
                by_cid: BTreeMap::new(),
                ticks: None,
                header: HeaderSummary {
                    server_version: info.server_version.clone(),
                    map_name: info.map_name.clone(),
                    map_sha256: info.map_sha256.clone(),
                },
                finish_recorded: info.uuids.iter().any(|u| u == PLAYER_FINISH_UUID_NAME),
                events: 0,
            },
            current: BTreeMap::new(),
            teams: BTreeMap::new(),
        }
    }

    /// A session for `cid` from `tick`. A JOIN right after the records a
    /// join begins with (JOINVER6 or JOINVER7, same tick) is the same stay.
    fn begin(&mut self, cid: i32, tick: i32, joined: bool) -> Result<usize, Fault> {
        if let Some(&i) = self.current.get(&cid) {
            let s = &mut self.roster.sessions[i];
            if !joined || (!s.joined && s.start == tick) {
                s.joined |= joined;
                return Ok(i);
            }
        }
        let r = &mut self.roster;
        if r.sessions.len() >= MAX_SESSIONS {
            return Err(Fault::TooMany {
                what: "joins",
                max: MAX_SESSIONS,
            });
        }
        let i = r.sessions.len();
        r.sessions.push(Session {
            cid,
            start: tick,
            joined,
            player_name: None,
            info_name: None,
            events: Vec::new(),
        });
        r.by_cid.entry(cid).or_default().push(i);
        self.current.insert(cid, i);
        self.teams.remove(&cid);
        Ok(i)
    }

    fn event(&mut self, cid: i32, tick: i32, what: What) -> Result<(), Fault> {
        match self.current.get(&cid) {
            Some(&i) => self.roster.push_event(i, RaceEvent { tick, what }),
            None => Ok(()),
        }
    }

    fn record(
        &mut self,
        tick: i32,
        msg: &Message<'_>,
        protocol: Option<crate::packet::Version>,
    ) -> Result<(), Fault> {
        let ticks = &mut self.roster.ticks;
        *ticks = Some(ticks.map_or((tick, tick), |(a, _)| (a, tick)));
        match msg {
            Message::Join { cid } => {
                self.begin(*cid, tick, true)?;
                self.event(*cid, tick, What::Join)?;
            }
            Message::Drop { cid, .. } => {
                self.event(*cid, tick, What::Leave)?;
                self.current.remove(cid);
                self.teams.remove(cid);
            }
            Message::PlayerNew { cid, .. }
            | Message::InputNew { cid, .. }
            | Message::InputDiff { cid, .. } => {
                self.begin(*cid, tick, false)?;
            }
            Message::NetMessage { cid, data } => {
                let i = self.begin(*cid, tick, false)?;
                if let Some(info) = client_info(protocol, data) {
                    let s = &mut self.roster.sessions[i];
                    s.info_name.get_or_insert_with(|| Text::from(info.name));
                }
                let version = protocol.unwrap_or(crate::packet::Version::V06);
                if let Ok((header, _)) = split(data)
                    && !header.sys
                    && header.name(version) == Some("Cl_Kill")
                {
                    self.event(*cid, tick, What::Kill)?;
                }
            }
            Message::ConsoleCommand(c) if c.cid >= 0 => {
                let what = What::Command {
                    cmd: c.cmd.clone().into_owned(),
                    args: c.args.iter().map(|a| a.clone().into_owned()).collect(),
                };
                self.event(c.cid, tick, what)?;
            }
            Message::Ex(m) => self.ex(tick, &m.ex)?,
            _ => {}
        }
        Ok(())
    }

    fn ex(&mut self, tick: i32, ex: &Ex<'_>) -> Result<(), Fault> {
        match ex {
            Ex::Joinver6 { cid }
            | Ex::Joinver7 { cid }
            | Ex::Rejoinver6 { cid }
            | Ex::PlayerReady { cid } => {
                self.begin(*cid, tick, false)?;
            }
            Ex::PlayerName { cid, name } => {
                let i = self.begin(*cid, tick, false)?;
                let s = &mut self.roster.sessions[i];
                s.player_name
                    .get_or_insert_with(|| name.clone().into_owned());
            }
            Ex::PlayerTeam { cid, team } => {
                self.teams.insert(*cid, *team);
                self.event(*cid, tick, What::Team { team: *team })?;
            }
            Ex::PlayerFinish { cid, time } => {
                self.event(*cid, tick, What::Finish { time: *time })?
            }
            Ex::SaveSuccess { team, .. } => self.team_event(tick, *team, SaveHow::Save)?,
            Ex::SaveFailure { team } => self.team_event(tick, *team, SaveHow::SaveFailed)?,
            Ex::LoadSuccess { team, .. } => self.team_event(tick, *team, SaveHow::Load)?,
            Ex::LoadFailure { team } => self.team_event(tick, *team, SaveHow::LoadFailed)?,
            _ => {}
        }
        Ok(())
    }

    /// A team's save or load: an event of each client in the team now.
    fn team_event(&mut self, tick: i32, team: i32, how: SaveHow) -> Result<(), Fault> {
        let members: Vec<i32> = self
            .current
            .keys()
            .copied()
            .filter(|cid| self.teams.get(cid).copied().unwrap_or(0) == team)
            .collect();
        for cid in members {
            self.event(cid, tick, What::Save { how, team })?;
        }
        Ok(())
    }

    /// The roster, each session keyed by its name and the order it came.
    fn done(mut self) -> Roster {
        let mut seen: BTreeMap<Option<Text<'static>>, u32> = BTreeMap::new();
        let r = &mut self.roster;
        r.keys = r
            .sessions
            .iter()
            .map(|s| {
                let name = s.name().cloned();
                let n = seen.entry(name.clone()).or_default();
                *n += 1;
                PlayerKey { name, join: *n }
            })
            .collect();
        self.roster
    }
}
