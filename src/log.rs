//! Event logs: one event per line, the same line format for a
//! teehistorian file ([`crate::teehistorian::log`]), a demo
//! ([`crate::demo::log`]) and a recording archive's `log.txt`.
//!
//! ```text
//!     105   0:02.10 join cid=0 protocol="0.6"
//!     108   0:02.16 name cid=0 name="alice"
//! ```
//!
//! Each line is the tick (right-aligned to 7), the game time, the event
//! and ` key=value` fields in a fixed order per event, values in compact
//! JSON (strings quoted; bytes that are not UTF-8 as `{"hex":"..."}`), so
//! `split_whitespace` on the first three columns and a JSON reader on each
//! value parse it.

use crate::bytes::write_pair;
use serde::Serialize;

/// Game ticks per second (DDNet's and Teeworlds' `SERVER_TICK_SPEED`).
pub const TICKS_PER_SECOND: i32 = 50;

/// The comment line that opens a log.
pub const HEADER: &str =
    "# tick, game time (m:ss.cc at 50 ticks/s), event, fields (key=JSON value)\n";

/// Game time of a tick, `m:ss.cc` (minutes grow past 59); a negative
/// tick (a demo's messages before its first tick marker) gets a `-`.
pub fn game_time(tick: i32) -> String {
    let tps = i64::from(TICKS_PER_SECOND);
    let sign = if tick < 0 { "-" } else { "" };
    let tick = i64::from(tick).abs();
    let (seconds, rest) = (tick / tps, tick % tps);
    format!(
        "{sign}{}:{:02}.{:02}",
        seconds / 60,
        seconds % 60,
        rest * 100 / tps
    )
}

/// Builds one line: the columns, then each field as ` key=value`
/// ([`write_pair`]). Held as bytes, the writer's target; every part is
/// UTF-8.
pub struct Line(Vec<u8>);

impl Line {
    /// The line of `event` at `tick`.
    pub fn new(tick: i32, event: &str) -> Line {
        Line(format!("{tick:>7} {:>9} {event}", game_time(tick)).into_bytes())
    }

    /// Adds ` key=value`, the value as compact JSON.
    pub fn field(mut self, key: &str, value: impl Serialize) -> Line {
        let at = self.0.len();
        // Serialising plain values and byte strings to JSON cannot fail;
        // if one did, its error would stand as the value.
        if let Err(e) = write_pair(&mut self.0, key, &value) {
            self.0.truncate(at);
            let _ = write_pair(&mut self.0, key, &e.to_string());
        }
        self
    }

    /// Adds ` key=value` when there is a value.
    pub fn maybe(self, key: &str, value: Option<impl Serialize>) -> Line {
        match value {
            Some(v) => self.field(key, v),
            None => self,
        }
    }

    /// The line, with its newline.
    pub fn done(mut self) -> String {
        self.0.push(b'\n');
        String::from_utf8(self.0)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_time_is_minutes_seconds_hundredths() {
        assert_eq!(game_time(0), "0:00.00");
        assert_eq!(game_time(478), "0:09.56");
        assert_eq!(game_time(50 * 61 + 1), "1:01.02");
        assert_eq!(game_time(50 * 3600), "60:00.00");
        assert_eq!(game_time(-1), "-0:00.02");
        assert_eq!(game_time(i32::MIN), "-715827:52.96");
    }
}
