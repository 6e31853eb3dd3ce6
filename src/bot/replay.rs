//! What bots send to play a recorded game again (`teeoracle record
//! --replay`): a teehistorian file read into one plan per join, each
//! with its name, protocol, the input the server applied on every tick,
//! and what the client said that DDNet records (game messages, chat
//! commands, remote console logins and commands), each on the tick the
//! server read it.
//!
//! Ticks are the file's: the server's ticks since its map began, which
//! the replay keeps (a map's turrets and timed switches go by them), as
//! a `record` run's first bot joins on the map's tick 0. DDNet records a client's
//! input on the tick before the one it applies it on (the first input a
//! bot sends for tick 100 is recorded on tick 99), and everything else a
//! client sends on the tick it reads it. What the file cannot give back
//! is named in [`Plan::notes`]: chat that is not a command (DDNet does not
//! record it), a drop the server decided (time-out, kick), the server's
//! own console, a client's DDNet version.

use crate::codec::{DecodeError, Mode};
use crate::packet::Version;
use crate::teehistorian::{ConsoleCommand, Ex, Header, Input, Message, Record, SliceReader};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The most joins a replay plays (DDNet holds at most 64 clients at a
/// time; a longer file brings more over its length).
pub const MAX_JOINS: usize = 256;
/// DDNet's chat command flag (`CFGFLAG_CHAT`).
const CHAT_COMMAND: i32 = 1 << 7;
/// The player flags' place in an input (`CNetObj_PlayerInput`).
const PLAYER_FLAGS: usize = 6;
/// DDNet's clients (`MAX_CLIENTS`, 16.4 and 20.1).
const MAX_CLIENTS: i32 = 64;

/// A recorded game, as bots replay it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Plan {
    /// The map the header names.
    pub map_name: Option<String>,
    /// Its SHA-256 (hex), where the header has one.
    pub map_sha256: Option<String>,
    /// The tick of the first client's join (or, for a client that came
    /// over from the previous map, its first record).
    pub first_tick: i32,
    /// The file's last tick.
    pub last_tick: u32,
    /// One per join, in join order.
    pub players: Vec<PlayerPlan>,
    /// What the replay cannot give back, each once with its first tick
    /// and how often.
    pub notes: Vec<Note>,
}

/// One join: a client, from its join to its leave.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlayerPlan {
    /// Its client id in the file.
    pub cid: i32,
    /// The name its start info gives (`cid N` without one).
    pub name: String,
    /// `"0.6"` or `"0.7"` (its JOINVER record).
    pub protocol: &'static str,
    /// The tick it joined on.
    pub join: u32,
    /// The tick it entered the game on (PLAYER_READY), when the file has
    /// it: a client may take ticks from its connection to its entry.
    pub ready: Option<u32>,
    /// The tick it left on, if it left before the file ended.
    pub leave: Option<u32>,
    /// Its start info as the server read it before the entry (the
    /// message's JSON), sent with the replay's entry.
    #[serde(skip)]
    pub start_info: Option<Value>,
    /// An input the server read with the entry (applied on the next tick).
    pub join_input: Option<Input>,
    /// The input applied from each tick on, at every change.
    #[serde(skip)]
    pub inputs: Vec<(u32, Input)>,
    /// What it sent, by the tick the server read it.
    #[serde(skip)]
    pub deeds: Vec<(u32, Deed)>,
}

impl Plan {
    /// Puts back the inputs DDNet 16.4's teehistorian writer left out:
    /// it records every input the server reads for a tick and moves with
    /// the first, but writes no input equal to the last one written, so
    /// a tick's first input can be missing when several came for it (a
    /// burst after a stall). `ticks` are the (tick, client id) the model
    /// of the game found the server moved with such an input on
    /// ([`crate::simulation::Report::held_inputs`]); the replay sends it
    /// first, before those the file records for the tick. How many were
    /// put back.
    pub fn restore_unwritten(&mut self, ticks: &[(i32, usize)]) -> usize {
        let mut restored = 0;
        for &(tick, cid) in ticks {
            let Ok(tick) = u32::try_from(tick) else {
                continue;
            };
            let player = self.players.iter_mut().find(|p| {
                usize::try_from(p.cid) == Ok(cid)
                    && p.join < tick
                    && p.leave.is_none_or(|l| tick <= l)
            });
            let Some(p) = player else {
                continue;
            };
            let at = p.inputs.partition_point(|(t, _)| *t < tick);
            let Some(&(_, last)) = at.checked_sub(1).and_then(|i| p.inputs.get(i)) else {
                continue;
            };
            p.inputs.insert(at, (tick, last));
            restored += 1;
        }
        restored
    }
}

impl Plan {
    /// Puts back the team changes of 0.7 clients DDNet does not record
    /// (0.7's `Cl_SetTeam` has the id of 0.6's `Cl_CallVote`): `changes`
    /// are the (tick, client id, team) the model of the game found a
    /// character gone or back on
    /// ([`crate::simulation::Report::unrecorded_team_changes`]); the
    /// replay's 0.7 client sends `Cl_SetTeam` so that the server reads it
    /// the tick before, as it read a 0.6 client's recorded one. How many
    /// were put back.
    pub fn restore_team_changes(&mut self, changes: &[(i32, usize, i32)]) -> usize {
        let mut restored = 0;
        for &(tick, cid, team) in changes {
            let Some(read) = u32::try_from(tick).ok().and_then(|t| t.checked_sub(1)) else {
                continue;
            };
            let player = self.players.iter_mut().find(|p| {
                usize::try_from(p.cid) == Ok(cid)
                    && p.protocol == "0.7"
                    && p.join < read
                    && p.leave.is_none_or(|l| read < l)
            });
            let Some(p) = player else {
                continue;
            };
            let at = p.deeds.partition_point(|(t, _)| *t <= read);
            p.deeds.insert(at, (read, Deed::Message(set_team_07(team))));
            restored += 1;
        }
        restored
    }
}

/// Teeworlds 0.7's `Cl_SetTeam` (game message 25: the team, an int).
fn set_team_07(team: i32) -> Value {
    let mut body = Vec::new();
    crate::packer::write_int(&mut body, team);
    serde_json::json!({"system": false, "id": 25, "body": hex::encode(body)})
}

impl PlayerPlan {
    /// The inputs the server read for tick `tick`, in the order it read
    /// them: those the file records for it (DDNet 16.4 moves with the
    /// first and records each, so all are sent), else the last before
    /// (zero before the first: DDNet's empty input).
    pub fn inputs_at(&self, tick: u32) -> Vec<Input> {
        let from = self.inputs.partition_point(|(t, _)| *t < tick);
        let to = self.inputs.partition_point(|(t, _)| *t <= tick);
        match (from < to, to.checked_sub(1)) {
            (true, _) => self.inputs[from..to].iter().map(|(_, i)| *i).collect(),
            (false, Some(last)) => vec![self.inputs[last].1],
            (false, None) => vec![[0; 10]],
        }
    }

    /// The first tick the file applies an input of its own on.
    pub fn first_input(&self) -> Option<u32> {
        self.inputs.first().map(|(t, _)| *t)
    }
}

/// Something a client sent that the server recorded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Deed {
    /// A game message (its JSON, as the packet encoder takes it).
    Message(Value),
    /// A chat command line (`/team 3`).
    Chat(String),
    /// A remote console login.
    RconLogin,
    /// A remote console command line.
    Rcon(String),
}

/// Something the replay cannot give back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The replay tick it first happened on.
    pub tick: u32,
    /// How many times.
    pub count: u32,
    /// What, in a sentence.
    pub what: String,
}

/// Why a file gives no plan.
#[derive(Debug)]
pub enum PlanError {
    /// The file cannot be read up to its end (the records before the
    /// error are not replayed: a replay of half a game is not asked for).
    Decode(DecodeError),
    /// Nobody joins.
    NoJoin,
    /// More joins than [`MAX_JOINS`].
    TooManyJoins {
        /// The replay's tick of the join one too many.
        tick: u32,
    },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::Decode(e) => write!(f, "{e}"),
            PlanError::NoJoin => write!(f, "no client joins in the file: nothing to replay"),
            PlanError::TooManyJoins { tick } => write!(
                f,
                "more than {MAX_JOINS} joins (the {}th {tick} ticks after the first): a replay plays at most {MAX_JOINS}",
                MAX_JOINS + 1
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// Reads the plan of the teehistorian file `bytes`. A file cut short (a
/// crashed server's) is played up to its last whole record.
pub fn plan(bytes: &[u8]) -> Result<Plan, PlanError> {
    let (header, reader) = SliceReader::new(bytes, Mode::Lenient).map_err(PlanError::Decode)?;
    let mut records = Vec::new();
    for r in reader {
        match r {
            Ok(r) => records.push(r),
            Err(e) if e.is_eof() => break,
            Err(e) => return Err(PlanError::Decode(e)),
        }
    }
    Planner::new(&header).run(&records)
}

/// The reading: which join each client id is on, and its input so far.
struct Planner {
    plan: Plan,
    /// Per client id: its join's index in `plan.players`.
    current: BTreeMap<i32, usize>,
    /// Per client id: the protocol its last JOINVER record said.
    protocol: BTreeMap<i32, Version>,
    /// Per client id: its input as recorded so far.
    input: BTreeMap<i32, Input>,
    notes: BTreeMap<String, (u32, u32)>,
}

impl Planner {
    fn new(header: &Header) -> Planner {
        Planner {
            plan: Plan {
                map_name: header.info.map_name.clone(),
                map_sha256: header.info.map_sha256.clone(),
                ..Plan::default()
            },
            current: BTreeMap::new(),
            protocol: BTreeMap::new(),
            input: BTreeMap::new(),
            notes: BTreeMap::new(),
        }
    }

    fn run(mut self, records: &[Record<'_>]) -> Result<Plan, PlanError> {
        // The first client: a join, or one that came over from the
        // previous map (its start info, login or entry).
        let first = records
            .iter()
            .find(|r| match &r.msg {
                Message::Join { .. } | Message::NetMessage { .. } => true,
                Message::Ex(ex) => matches!(ex.ex, Ex::PlayerReady { .. } | Ex::AuthInit { .. }),
                _ => false,
            })
            .ok_or(PlanError::NoJoin)?;
        self.plan.first_tick = first.tick;
        for r in records.iter().filter(|r| r.tick >= first.tick) {
            let tick = u32::try_from(r.tick).unwrap_or(u32::MAX);
            self.plan.last_tick = self.plan.last_tick.max(tick);
            self.record(r, tick)?;
        }
        let mut notes: Vec<Note> = self
            .notes
            .into_iter()
            .map(|(what, (tick, count))| Note { tick, count, what })
            .collect();
        notes.sort_by(|a, b| (a.tick, &a.what).cmp(&(b.tick, &b.what)));
        self.plan.notes = notes;
        Ok(self.plan)
    }

    fn note(&mut self, tick: u32, what: String) {
        let e = self.notes.entry(what).or_insert((tick, 0));
        e.1 += 1;
    }

    fn player(&mut self, cid: i32) -> Option<&mut PlayerPlan> {
        let i = *self.current.get(&cid)?;
        self.plan.players.get_mut(i)
    }

    /// A new join of `cid` on `tick`. A client id DDNet cannot have
    /// (not below its 64 clients) is left out, named: so a replay never
    /// plays more clients at once than a server holds.
    fn join(&mut self, cid: i32, tick: u32, version: Version) -> Result<(), PlanError> {
        if !(0..MAX_CLIENTS).contains(&cid) {
            let what = format!(
                "a client id DDNet does not have ({cid}; its clients are 0 to {}): not replayed",
                MAX_CLIENTS - 1
            );
            self.note(tick, what);
            return Ok(());
        }
        if self.plan.players.len() == MAX_JOINS {
            return Err(PlanError::TooManyJoins { tick });
        }
        self.input.remove(&cid);
        self.current.insert(cid, self.plan.players.len());
        self.plan.players.push(PlayerPlan {
            cid,
            name: format!("cid {cid}"),
            protocol: if version == Version::V07 {
                "0.7"
            } else {
                "0.6"
            },
            join: tick,
            ..PlayerPlan::default()
        });
        Ok(())
    }

    /// The player `cid` is, or, for a client the file meets without its
    /// JOIN (it came over from the previous map), a join on `tick`.
    fn present(&mut self, cid: i32, tick: u32) -> Result<Option<&mut PlayerPlan>, PlanError> {
        if !self.current.contains_key(&cid) && (0..MAX_CLIENTS).contains(&cid) {
            self.note(
                tick,
                "a client that came over from the previous map: it joins anew".into(),
            );
        }
        if !self.current.contains_key(&cid) {
            self.join(cid, tick, Version::V06)?;
        }
        Ok(self.player(cid))
    }

    fn record(&mut self, r: &Record<'_>, tick: u32) -> Result<(), PlanError> {
        match &r.msg {
            Message::Join { cid } => {
                let version = self.protocol.remove(cid).unwrap_or(Version::V06);
                self.join(*cid, tick, version)?;
            }
            Message::Drop { cid, reason } => {
                let reason = String::from_utf8_lossy(reason).into_owned();
                if let Some(p) = self.player(*cid) {
                    p.leave = Some(tick);
                    // A client's own leave has no reason; the shutdown's
                    // drops end the file as the replay's end does.
                    if !reason.is_empty() && reason != "Server shutdown" {
                        let what = format!(
                            "a drop the server decided (\"{reason}\"): the replay leaves on its tick"
                        );
                        self.note(tick, what);
                    }
                }
                self.current.remove(cid);
            }
            Message::InputNew { cid, input } => self.input(*cid, tick, *input),
            Message::InputDiff { cid, dinput } => {
                let mut input = self.input.get(cid).copied().unwrap_or([0; 10]);
                for (v, d) in input.iter_mut().zip(dinput) {
                    *v = v.wrapping_add(*d);
                }
                self.input(*cid, tick, input);
            }
            Message::NetMessage { cid, .. } => {
                let Some(Ok(m)) = crate::teehistorian::json::client_message(r) else {
                    self.note(tick, "a message that cannot be read".into());
                    return Ok(());
                };
                let start_info = m.name() == Some("Cl_StartInfo");
                let name = match &m.fields {
                    Some(Ok(f)) if start_info => f
                        .text("name")
                        .map(|n| String::from_utf8_lossy(n).into_owned()),
                    _ => None,
                };
                let json = resent(&m);
                let Some(p) = self.present(*cid, tick)? else {
                    return Ok(());
                };
                if start_info && p.start_info.is_none() && p.ready.is_none() {
                    if let Some(name) = name {
                        p.name = name;
                    }
                    p.start_info = Some(json);
                } else {
                    p.deeds.push((tick, Deed::Message(json)));
                }
            }
            Message::ConsoleCommand(c) => self.command(c, tick),
            Message::Ex(ex) => match &ex.ex {
                Ex::Joinver6 { cid } => {
                    self.protocol.insert(*cid, Version::V06);
                }
                Ex::Joinver7 { cid } => {
                    self.protocol.insert(*cid, Version::V07);
                }
                // A login, or one the previous map's client had.
                Ex::AuthLogin { cid, .. } | Ex::AuthInit { cid, .. } => {
                    if let Some(p) = self.present(*cid, tick)? {
                        p.deeds.push((tick, Deed::RconLogin));
                    }
                }
                Ex::PlayerReady { cid } => {
                    if let Some(p) = self.present(*cid, tick)? {
                        p.ready.get_or_insert(tick);
                    }
                }
                Ex::PlayerName { cid, name } => {
                    if let Some(p) = self.player(*cid) {
                        p.name = String::from_utf8_lossy(name).into_owned();
                    }
                }
                Ex::Rejoinver6 { .. } => {
                    self.note(tick, "a client rejoining after a map change".into())
                }
                Ex::Ddnetver { .. } | Ex::DdnetverOld { .. } => self.note(
                    tick,
                    "a client's DDNet version (the bots do not send one)".into(),
                ),
                Ex::AuthLogout { .. } => self.note(tick, "a remote console logout".into()),
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// An input recorded on `tick`: applied on the next (one that came
    /// with the join, on the join's tick, goes out with the replay's). A
    /// 0.7 client's is planned as it sent it: its player flags as 0.7's.
    fn input(&mut self, cid: i32, tick: u32, input: Input) {
        self.input.insert(cid, input);
        let Some(p) = self.player(cid) else {
            return;
        };
        let mut input = input;
        if p.protocol == "0.7" {
            input[PLAYER_FLAGS] = super::six_to_seven(input[PLAYER_FLAGS]);
        }
        if tick == p.ready.unwrap_or(p.join) && p.inputs.is_empty() {
            p.join_input = Some(input);
        }
        p.inputs.push((tick + 1, input));
    }

    fn command(&mut self, c: &ConsoleCommand<'_>, tick: u32) {
        let line = command_line(c);
        if c.cid < 0 {
            self.note(
                tick,
                "a command of the server's own console (replayed only as far as the players' messages cause it)".into(),
            );
            return;
        }
        let deed = match c.flags & CHAT_COMMAND != 0 {
            true => Deed::Chat(format!("/{line}")),
            false => Deed::Rcon(line),
        };
        if let Some(p) = self.player(c.cid) {
            p.deeds.push((tick, deed));
        }
    }
}

/// A recorded message as the packet encoder takes it back: its header
/// and its body's bytes as they came, so that the server reads what it
/// read then, whatever the body holds.
fn resent(m: &crate::packet::Message<'_>) -> Value {
    use crate::packet::msg::MsgId;
    let mut json = serde_json::json!({"system": m.header.sys, "body": hex::encode(m.body)});
    match m.header.id {
        MsgId::Ordinal(id) => json["id"] = id.into(),
        MsgId::Uuid(u) => json["uuid"] = u.to_string().into(),
    }
    json
}

/// A console command as a line DDNet's console parses back into the same
/// name and arguments: an argument with a space or a quote is quoted
/// (inner quotes and backslashes escaped), but the last, which may be a
/// rest-of-line parameter that keeps quotes as they are.
pub fn command_line(c: &ConsoleCommand<'_>) -> String {
    let mut line = String::from_utf8_lossy(&c.cmd).into_owned();
    let n = c.args.len();
    for (i, a) in c.args.iter().enumerate() {
        let a = String::from_utf8_lossy(a);
        line.push(' ');
        let plain = i + 1 == n || !(a.is_empty() || a.contains([' ', '"', '\\', ';']));
        if plain {
            line.push_str(&a);
        } else {
            line.push('"');
            line.push_str(&a.replace('\\', "\\\\").replace('"', "\\\""));
            line.push('"');
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(path: &str) -> Vec<u8> {
        std::fs::read(format!("{}/corpus/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn a_record_run_plans_its_bots_joins_inputs_and_commands() {
        let plan = plan(&corpus(
            "teehistorian/ddnet-16.4/join_move_leave.teehistorian",
        ))
        .unwrap();
        assert_eq!(plan.map_name.as_deref(), Some("Tutorial"));
        assert!(!plan.players.is_empty());
        let first = &plan.players[0];
        // The file's ticks: this older run's first bot connected on tick
        // 16 and entered the game three ticks later.
        assert_eq!(first.join, 16);
        assert_eq!(first.protocol, "0.6");
        assert!(first.start_info.is_some());
        assert_eq!(first.ready, Some(19));
        assert!(!first.name.starts_with("cid "));
        // Every input is applied on a tick after the join.
        for p in &plan.players {
            assert!(p.inputs.iter().all(|(t, _)| *t > p.join), "{}", p.name);
        }
    }

    #[test]
    fn a_07_clients_inputs_are_planned_with_07s_player_flags() {
        use crate::bot::{seven, six};
        use std::collections::BTreeSet;
        // A campaign run whose b2 and b4 are 0.7 clients: DDNet recorded
        // their scoreboard (0.7's 4) and aim (0.7's 128) as 0.6's 8 and 16.
        let gz = corpus("campaign/16.4-Tsunami-default-s2-c8-t20/server.teehistorian.gz");
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut bytes).unwrap();
        let plan = plan(&bytes).unwrap();
        let flags = |p: &PlayerPlan| -> BTreeSet<i32> {
            p.inputs.iter().map(|(_, i)| i[PLAYER_FLAGS]).collect()
        };
        let sevens: Vec<_> = plan
            .players
            .iter()
            .filter(|p| p.protocol == "0.7")
            .collect();
        assert_eq!(sevens.len(), 2);
        for p in sevens {
            assert_eq!(flags(p), BTreeSet::from([0, 4, 128, 132]), "{}", p.name);
        }
        // A 0.6 client's go out as recorded (playing: 1).
        assert!(
            plan.players
                .iter()
                .any(|p| flags(p).contains(&(six::PLAYING | six::AIM)))
        );
        // Chatting, the flag that holds a player still: 0.6's 4 is 0.7's
        // scoreboard, which would let it move.
        let (header, _) = SliceReader::new(&bytes, Mode::Lenient).unwrap();
        let mut planner = Planner::new(&header);
        planner.join(9, 1, Version::V07).unwrap();
        let mut chatting = [0; 10];
        chatting[PLAYER_FLAGS] = six::CHATTING | six::AIM;
        planner.input(9, 2, chatting);
        let planned = planner.plan.players[0].inputs[0].1[PLAYER_FLAGS];
        assert_eq!(planned, seven::CHATTING | seven::AIM);
    }

    #[test]
    fn a_client_id_ddnet_does_not_have_is_left_out_named() {
        use crate::teehistorian::{HeaderInfo, Recorder};
        let header = Header::from_info(HeaderInfo {
            version: 2,
            ..HeaderInfo::default()
        });
        let mut rec = Recorder::new(&header);
        rec.tick(1);
        for cid in [0, 63, 64, 70] {
            rec.record_player_join(cid, Version::V06);
            rec.record_player_input(cid, cid as u32, &[1; 10]).unwrap();
        }
        rec.tick(2);
        rec.record_ex(Ex::PlayerReady { cid: 70 });
        rec.finish();
        let plan = plan(rec.bytes()).unwrap();
        let cids: Vec<i32> = plan.players.iter().map(|p| p.cid).collect();
        assert_eq!(cids, [0, 63]);
        let notes: Vec<_> = plan
            .notes
            .iter()
            .map(|n| (n.tick, n.count, &n.what[..]))
            .collect();
        assert_eq!(
            notes,
            [
                (
                    1,
                    1,
                    "a client id DDNet does not have (64; its clients are 0 to 63): not replayed"
                ),
                (
                    1,
                    2,
                    "a client id DDNet does not have (70; its clients are 0 to 63): not replayed"
                ),
            ]
        );
    }

    #[test]
    fn a_07_clients_unrecorded_team_changes_are_sent_the_tick_before() {
        let player = |cid, protocol| PlayerPlan {
            cid,
            protocol,
            join: 2,
            leave: Some(50),
            deeds: vec![(30, Deed::Chat("/spec".into()))],
            ..PlayerPlan::default()
        };
        let mut plan = Plan {
            players: vec![player(3, "0.7"), player(4, "0.6")],
            ..Plan::default()
        };
        // Gone at 41 and back at 30 (Cl_SetTeam -1 and 0 read at 40 and
        // 29); a 0.6 client (whose are recorded); before the join; after
        // the leave.
        let restored = plan.restore_team_changes(&[
            (41, 3, -1),
            (30, 3, 0),
            (41, 4, -1),
            (2, 3, 0),
            (60, 3, 0),
        ]);
        assert_eq!(restored, 2);
        let deeds: Vec<String> = (plan.players[0].deeds.iter())
            .map(|(t, d)| match d {
                Deed::Message(m) => format!("{t} {}:{}", m["id"], m["body"]),
                Deed::Chat(c) => format!("{t} {c}"),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(deeds, ["29 25:\"00\"", "30 /spec", "40 25:\"40\""]);
        assert_eq!(plan.players[1].deeds.len(), 1);
    }

    #[test]
    fn inputs_at_holds_the_last_change_and_gives_a_bursts_every_input() {
        let p = PlayerPlan {
            inputs: vec![(5, [1; 10]), (9, [2; 10]), (9, [3; 10])],
            ..PlayerPlan::default()
        };
        assert_eq!(p.inputs_at(4), [[0; 10]]);
        assert_eq!(p.inputs_at(5), [[1; 10]]);
        assert_eq!(p.inputs_at(8), [[1; 10]]);
        assert_eq!(p.inputs_at(9), [[2; 10], [3; 10]]);
        assert_eq!(p.inputs_at(1000), [[3; 10]]);
    }

    #[test]
    fn an_unwritten_input_goes_first_on_its_tick() {
        let mut plan = Plan {
            players: vec![PlayerPlan {
                cid: 3,
                join: 2,
                inputs: vec![(5, [1; 10]), (9, [2; 10])],
                ..PlayerPlan::default()
            }],
            ..Plan::default()
        };
        // Tick 9 began with input 1 again; nothing known before tick 5;
        // another client; a tick before the join.
        let restored = plan.restore_unwritten(&[(9, 3), (4, 3), (9, 4), (1, 3)]);
        assert_eq!(restored, 1);
        let p = &plan.players[0];
        assert_eq!(p.inputs_at(9), [[1; 10], [2; 10]]);
        assert_eq!(p.inputs_at(10), [[2; 10]]);
    }

    #[test]
    fn a_command_line_parses_back_into_its_arguments() {
        use crate::bytes::Text;
        let c = ConsoleCommand {
            cid: 0,
            flags: 128,
            cmd: Text::from(&b"w"[..]),
            args: vec![Text::from(&b"a b"[..]), Text::from(&b"hi \"you\""[..])],
        };
        assert_eq!(command_line(&c), "w \"a b\" hi \"you\"");
    }
}
