//! `log.txt`: the recording's events, one per line.
//!
//! ```text
//! # log.txt: tick, game time (m:ss.cc at 50 ticks/s), event, fields (key=JSON value)
//!     105   0:02.10 join cid=0 protocol="0.6"
//!     108   0:02.16 name cid=0 name="alice"
//!     933   0:18.66 drop cid=0 name="alice" reason=""
//! ```
//!
//! Each line is the tick (right-aligned to 7), the game time, the event
//! and ` key=value` fields in a fixed order per event, values in compact
//! JSON (strings quoted; bytes that are not UTF-8 as `{"hex":"..."}`), so
//! `split_whitespace` on the first three columns and a JSON reader on each
//! value parse it. Events, from the records they come from:
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

use super::text::{Expected, TextError};
use crate::bytes::Text;
use crate::teehistorian::{End, Ex, Message, Protocol, Replay};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The first line of every `log.txt`.
pub const LOG_HEADER: &str =
    "# log.txt: tick, game time (m:ss.cc at 50 ticks/s), event, fields (key=JSON value)\n";

/// Game time of a tick, `m:ss.cc` (minutes grow past 59).
pub fn game_time(tick: i32) -> String {
    let tps = super::TICKS_PER_SECOND;
    let (seconds, rest) = (tick.div_euclid(tps), tick.rem_euclid(tps));
    format!(
        "{}:{:02}.{:02}",
        seconds / 60,
        seconds % 60,
        rest * 100 / tps
    )
}

/// Builds one line: the columns, then each field as ` key=value`.
struct Line(String);

impl Line {
    fn new(tick: i32, event: &str) -> Line {
        Line(format!("{tick:>7} {:>9} {event}", game_time(tick)))
    }

    fn field(mut self, key: &str, value: impl Serialize) -> Line {
        // Serialising plain values and byte strings to JSON cannot fail.
        let json = serde_json::to_string(&value).unwrap_or_else(|e| format!("\"{e}\""));
        let _ = write!(self.0, " {key}={json}");
        self
    }

    fn maybe(self, key: &str, value: Option<impl Serialize>) -> Line {
        match value {
            Some(v) => self.field(key, v),
            None => self,
        }
    }

    fn done(mut self) -> String {
        self.0.push('\n');
        self.0
    }
}

/// Builds a `log.txt`, record by record.
#[derive(Clone, Debug)]
pub struct EventLog {
    text: String,
    /// Clients that joined and have not been named since: the name the
    /// replay still holds for their slot is their predecessor's.
    unnamed: BTreeSet<i32>,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog {
            text: LOG_HEADER.to_string(),
            unnamed: BTreeSet::new(),
        }
    }
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

    /// The finished text; a recording without FINISH ends with a line
    /// saying where it was cut.
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
                        Protocol::Six => "0.6",
                        Protocol::Seven => "0.7",
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

/// Checks that `text` has the shape of a `log.txt`: the header line, then
/// lines of tick, matching game time and an event name, ticks never going
/// back. (Whether the events are the recording's is `verify`'s job.)
pub fn check(text: &str) -> Result<(), TextError> {
    let body = text.strip_prefix(LOG_HEADER).ok_or(TextError {
        line: Some(1),
        expected: Expected::Shape {
            shape: "the log.txt header line",
        },
        found: text.lines().next().map(|l| format!("{l:?}")),
    })?;
    if !body.is_empty() && !body.ends_with('\n') {
        return Err(TextError::whole(Expected::WholeLastLine));
    }
    let mut last = 0;
    for (i, line) in body.lines().enumerate() {
        let n = i + 2;
        let bad = |expected| TextError {
            line: Some(n),
            expected,
            found: Some(format!("{line:?}")),
        };
        let mut cols = line.split_whitespace();
        let (Some(tick), Some(time), Some(event)) = (cols.next(), cols.next(), cols.next()) else {
            return Err(bad(Expected::Shape {
                shape: "`TICK TIME EVENT ...`",
            }));
        };
        let tick: i32 = tick
            .parse()
            .map_err(|_| bad(Expected::Number { key: "tick" }))?;
        if time != game_time(tick)
            || tick < last
            || !event.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        {
            return Err(bad(Expected::LogLine));
        }
        last = tick;
    }
    Ok(())
}

/// One line of a `log.txt`, read back: the columns, then the fields in
/// their order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogEvent {
    /// The tick.
    pub tick: i32,
    /// The game time, `m:ss.cc`.
    pub time: String,
    /// The event (`join`, `name`, `drop`, ...).
    pub event: String,
    /// The fields, each a JSON value (an object of its own: a field may
    /// share a column's name, as `finish`'s `time` in ticks does).
    pub fields: serde_json::Map<String, serde_json::Value>,
}

/// The events of a `log.txt` (one that passed [`check`]), in order; a line
/// whose fields are not ` key=JSON` pairs is an error naming it.
pub fn events(text: &str) -> impl Iterator<Item = Result<LogEvent, TextError>> + '_ {
    let body = text.strip_prefix(LOG_HEADER).unwrap_or(text);
    body.lines()
        .enumerate()
        .map(|(i, line)| parse_line(i + 2, line))
}

fn parse_line(n: usize, line: &str) -> Result<LogEvent, TextError> {
    let bad = |shape| TextError {
        line: Some(n),
        expected: Expected::Shape { shape },
        found: Some(format!("{line:?}")),
    };
    let mut rest = line.trim_start();
    let mut column = || {
        let end = rest.find(' ').unwrap_or(rest.len());
        let (col, after) = rest.split_at(end);
        rest = after.trim_start_matches(' ');
        col
    };
    let (tick, time, event) = (column(), column(), column());
    let tick = tick
        .parse()
        .map_err(|_| bad("`TICK TIME EVENT key=value ...`"))?;
    let (time, event) = (time.to_string(), event.to_string());
    let mut fields = serde_json::Map::new();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=').ok_or(bad("` key=JSON` fields"))?;
        let mut values = serde_json::Deserializer::from_str(after).into_iter();
        let value = values
            .next()
            .and_then(Result::ok)
            .ok_or(bad("` key=JSON` fields"))?;
        let after = &after[values.byte_offset()..];
        rest = match after.strip_prefix(' ') {
            Some(more) => more,
            None if after.is_empty() => after,
            None => return Err(bad("` key=JSON` fields")),
        };
        fields.insert(key.to_string(), value);
    }
    Ok(LogEvent {
        tick,
        time,
        event,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_back_as_events() {
        let text = format!(
            "{LOG_HEADER}    105   0:02.10 join cid=0 protocol=\"0.6\"\n   1500   0:30.00 console cid=3 cmd=\"say\" args=[\"a b\",\"c\"]\n"
        );
        check(&text).unwrap();
        let read: Vec<LogEvent> = events(&text).collect::<Result<_, _>>().unwrap();
        assert_eq!((read[0].tick, read[0].time.as_str()), (105, "0:02.10"));
        assert_eq!(read[0].event, "join");
        assert_eq!(read[0].fields["protocol"], "0.6");
        let keys: Vec<&String> = read[1].fields.keys().collect();
        assert_eq!(keys, ["cid", "cmd", "args"], "in the line's order");
        assert_eq!(read[1].fields["args"][0], "a b");
        let bad = format!("{LOG_HEADER}      1   0:00.02 join cid=0x\n");
        assert_eq!(events(&bad).next().unwrap().unwrap_err().line, Some(2));
    }

    #[test]
    fn game_time_is_minutes_seconds_hundredths() {
        assert_eq!(game_time(0), "0:00.00");
        assert_eq!(game_time(478), "0:09.56");
        assert_eq!(game_time(50 * 61 + 1), "1:01.02");
        assert_eq!(game_time(50 * 3600), "60:00.00");
    }

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
