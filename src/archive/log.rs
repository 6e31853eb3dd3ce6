//! `log.txt`: the recording's events ([`crate::teehistorian::log`]), with
//! its header line, and read back.

use super::text_error::{Expected, TextError};
use crate::log::game_time;
use serde::Serialize;

/// The first line of every `log.txt`.
pub const LOG_HEADER: &str =
    "# log.txt: tick, game time (m:ss.cc at 50 ticks/s), event, fields (key=JSON value)\n";

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
}
