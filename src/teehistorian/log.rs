//! A teehistorian recording's events, one per line in [`crate::log`]'s
//! format: `teehistorian log`, and an archive's `log.txt`.
//!
//! ```text
//! # tick, game time (m:ss.cc at 50 ticks/s), event, fields (key=JSON value)
//!     105   0:02.10 join cid=0 protocol="0.6"
//!     108   0:02.16 name cid=0 name="alice"
//!     933   0:18.66 drop cid=0 name="alice" reason=""
//! ```
//!
//! Events, from the records they come from:
//!
//! | event | record | fields |
//! |---|---|---|
//! | `join` | JOIN | cid, protocol (`"0.6"`/`"0.7"`, from the JOINVER record before it) |
//! | `rejoin` | REJOINVER6 | cid |
//! | `ready` | PLAYER_READY | cid, name |
//! | `version` | DDNETVER, DDNETVER_OLD | cid, version, version_str, connection_id |
//! | `name` | PLAYER_NAME | cid, name, was (the name before, if any) |
//! | `drop` | DROP | cid, name, reason |
//! | `console` | CONSOLE_COMMAND | cid, name, flags, cmd, args |
//! | `auth_login`, `auth_init`, `auth_logout` | AUTH_* | cid, name, level, auth_name |
//! | `team` | PLAYER_TEAM | cid, name, team, was |
//! | `practice` | TEAM_PRACTICE | team, practice |
//! | `finish` | PLAYER_FINISH | cid, name, time (ticks) |
//! | `team_finish` | TEAM_FINISH | team, time (ticks) |
//! | `save`, `save_failed`, `load`, `load_failed` | SAVE_*, LOAD_* | team, save_id, save |
//! | `swap` | PLAYER_SWAP | cid1, cid2 |
//! | `spawn`, `despawn` | PLAYER_NEW, PLAYER_OLD | cid, x, y |
//! | `end` | FINISH, or the end of a cut file | how (`"finish"`/`"truncated"`); for a cut file offset and partial (as `teehistorian stats` reports the end) |
//!
//! `name` is the player's name as the recording last set it since the
//! client joined, left out when not known yet (a new client in a slot
//! does not inherit the name of the one before). Movement, inputs, network messages and antibot data
//! are not events (`teeoracle teehistorian dump` shows them).

use crate::bytes::Text;
use crate::log::Line;
use crate::packet::Version;
use crate::teehistorian::{End, Ex, Message, Replay};
use std::collections::BTreeSet;

/// Builds the event lines of a recording, record by record.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    text: String,
    /// Clients that joined and have not been named since: the name the
    /// replay still holds for their slot is their predecessor's.
    unnamed: BTreeSet<i32>,
}

impl EventLog {
    /// Adds the line of `msg` (at `tick`), if it is an event. `replay` is
    /// the state before `msg` is handled.
    pub fn record(&mut self, tick: i32, msg: &Message<'_>, replay: &Replay) {
        if let Some(line) = event_line(tick, msg, replay, &self.unnamed) {
            self.text.push_str(&line);
        }
        match msg {
            Message::Join { cid } => {
                self.unnamed.insert(*cid);
            }
            Message::Ex(m) => {
                if let Ex::PlayerName { cid, .. } = m.ex {
                    self.unnamed.remove(&cid);
                }
            }
            _ => {}
        }
    }

    /// The lines; a recording without FINISH ends with a line saying
    /// where it was cut.
    pub fn finish(mut self, last_tick: i32, end: Option<End>) -> String {
        if let Some(End::Truncated { offset, partial }) = end {
            let line = Line::new(last_tick, "end")
                .field("how", "truncated")
                .field("offset", offset)
                .field("partial", partial)
                .done();
            self.text.push_str(&line);
        }
        self.text
    }
}

/// The log line of `msg` (at `tick`), or `None` if it is not an event.
/// `replay` is the state before `msg` is handled.
fn event_line(
    tick: i32,
    msg: &Message<'_>,
    replay: &Replay,
    unnamed: &BTreeSet<i32>,
) -> Option<String> {
    let name = |cid: i32| {
        (!unnamed.contains(&cid))
            .then(|| replay.player(cid).and_then(|p| p.name.clone()))
            .flatten()
    };
    let line = |event| Line::new(tick, event);
    let player = |event, cid: i32| line(event).field("cid", cid).maybe("name", name(cid));
    Some(
        match msg {
            Message::Join { cid } => {
                let protocol = replay.player(*cid).and_then(|p| p.protocol);
                line("join").field("cid", cid).maybe(
                    "protocol",
                    protocol.map(|p| match p {
                        Version::V06 => "0.6",
                        Version::V07 => "0.7",
                    }),
                )
            }
            Message::Drop { cid, reason } => player("drop", *cid).field("reason", reason),
            Message::ConsoleCommand(c) => player("console", c.cid)
                .field("flags", c.flags)
                .field("cmd", &c.cmd)
                .field("args", &c.args),
            Message::PlayerNew { cid, x, y } => {
                line("spawn").field("cid", cid).field("x", x).field("y", y)
            }
            Message::PlayerOld { cid } => {
                let (x, y) = replay.player(*cid).map_or((0, 0), |p| (p.x, p.y));
                line("despawn")
                    .field("cid", cid)
                    .field("x", x)
                    .field("y", y)
            }
            Message::Finish => line("end").field("how", "finish"),
            Message::Ex(m) => return ex_line(tick, &m.ex, replay, name),
            Message::PlayerDiff { .. }
            | Message::TickSkip { .. }
            | Message::InputNew { .. }
            | Message::InputDiff { .. }
            | Message::NetMessage { .. } => return None,
        }
        .done(),
    )
}

fn ex_line(
    tick: i32,
    ex: &Ex<'_>,
    replay: &Replay,
    name: impl Fn(i32) -> Option<Text<'static>>,
) -> Option<String> {
    let line = |event| Line::new(tick, event);
    let player = |event, cid: i32| line(event).field("cid", cid).maybe("name", name(cid));
    let save = |event, team: i32, save_id: Option<&uuid::Uuid>, save: Option<&Text<'_>>| {
        line(event)
            .field("team", team)
            .maybe("save_id", save_id)
            .maybe("save", save)
    };
    Some(
        match ex {
            Ex::Rejoinver6 { cid } => line("rejoin").field("cid", cid),
            Ex::PlayerReady { cid } => player("ready", *cid),
            Ex::Ddnetver {
                cid,
                connection_id,
                version,
                version_str,
            } => line("version")
                .field("cid", cid)
                .field("version", version)
                .field("version_str", version_str)
                .field("connection_id", connection_id),
            Ex::DdnetverOld { cid, version } => {
                line("version").field("cid", cid).field("version", version)
            }
            Ex::PlayerName { cid, name: new } => line("name")
                .field("cid", cid)
                .field("name", new)
                .maybe("was", name(*cid)),
            Ex::AuthLogin {
                cid,
                level,
                auth_name,
            } => player("auth_login", *cid)
                .field("level", level)
                .field("auth_name", auth_name),
            Ex::AuthInit {
                cid,
                level,
                auth_name,
            } => player("auth_init", *cid)
                .field("level", level)
                .field("auth_name", auth_name),
            Ex::AuthLogout { cid } => player("auth_logout", *cid),
            Ex::PlayerTeam { cid, team } => player("team", *cid)
                .field("team", team)
                .maybe("was", replay.player(*cid).map(|p| p.team)),
            Ex::TeamPractice { team, practice } => line("practice")
                .field("team", team)
                .field("practice", practice),
            Ex::PlayerFinish { cid, time } => player("finish", *cid).field("time", time),
            Ex::TeamFinish { team, time } => {
                line("team_finish").field("team", team).field("time", time)
            }
            Ex::SaveSuccess {
                team,
                save_id,
                save: s,
            } => save("save", *team, Some(save_id), Some(s)),
            Ex::SaveFailure { team } => save("save_failed", *team, None, None),
            Ex::LoadSuccess {
                team,
                save_id,
                save: s,
            } => save("load", *team, Some(save_id), Some(s)),
            Ex::LoadFailure { team } => save("load_failed", *team, None, None),
            Ex::PlayerSwap { cid1, cid2 } => line("swap").field("cid1", cid1).field("cid2", cid2),
            Ex::Joinver6 { .. }
            | Ex::Joinver7 { .. }
            | Ex::Test { .. }
            | Ex::Antibot { .. }
            | Ex::UnknownEx { .. } => return None,
        }
        .done(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_fixed_columns_and_json_values() {
        let replay = Replay::new(Default::default());
        let drop = Message::Drop {
            cid: 3,
            reason: Text::from(&b"bye \"x\"\xff"[..]),
        };
        assert_eq!(
            event_line(1500, &drop, &replay, &BTreeSet::new()).unwrap(),
            "   1500   0:30.00 drop cid=3 reason={\"hex\":\"62796520227822ff\"}\n"
        );
        assert_eq!(
            event_line(1, &Message::TickSkip { dt: 3 }, &replay, &BTreeSet::new()),
            None
        );
    }
}
