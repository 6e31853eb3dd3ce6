//! Why a text member of an archive (`info.txt`, `toc.txt`, `index.txt`,
//! `log.txt`, ...) does not parse: the line, what was expected there, and
//! what was found.

use serde::Serialize;
use std::fmt;

/// Why a text member does not parse: where, what was expected there and
/// what was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextError {
    /// The 1-based line at fault, when one line is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What the member should have there, e.g. `` `key: value` ``.
    pub expected: Expected,
    /// What is there instead (the line or the value), when something is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
}

/// What a text member should have had.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "expected", rename_all = "snake_case")]
pub enum Expected {
    /// A line shaped as described (`` `key: value` ``, `` `save<k>.ron TICK
    /// OFFSET` ``, ...).
    Shape {
        /// The shape.
        shape: &'static str,
    },
    /// A JSON string (a value that starts with a quote).
    JsonString,
    /// A non-negative number for `key`.
    Number {
        /// The key.
        key: &'static str,
    },
    /// A line with `key:`, which is missing.
    Key {
        /// The key.
        key: &'static str,
    },
    /// The archive version this crate reads.
    Version {
        /// That version.
        supported: u32,
    },
    /// Entries in ascending order.
    Ascending {
        /// Which entries.
        what: &'static str,
    },
    /// Each checkpoint listed once.
    ListedOnce,
    /// The first member and frame at offset 0.
    StartAtZero,
    /// A checkpoint in RON (`found` is the RON reader's complaint).
    Checkpoint,
    /// `history.ron`'s RON.
    History,
    /// A line break at the end of the last line.
    WholeLastLine,
    /// Game time matching the tick, an event name, ticks never going back.
    LogLine,
    /// UTF-8 text.
    Utf8,
}

impl TextError {
    /// An error on line `line`.
    pub(super) fn at(line: usize, expected: Expected, found: impl Into<String>) -> TextError {
        TextError {
            line: Some(line),
            expected,
            found: Some(found.into()),
        }
    }

    /// An error about the member as a whole.
    pub(crate) fn whole(expected: Expected) -> TextError {
        TextError {
            line: None,
            expected,
            found: None,
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Shape { shape } => f.write_str(shape),
            Expected::JsonString => f.write_str("a JSON string"),
            Expected::Number { key } => write!(f, "a number for {key}"),
            Expected::Key { key } => write!(f, "a `{key}:` line"),
            Expected::Version { supported } => write!(
                f,
                "archive version {supported} (the version this teeoracle reads)"
            ),
            Expected::Ascending { what } => write!(f, "{what} in ascending order"),
            Expected::ListedOnce => f.write_str("each checkpoint listed once"),
            Expected::StartAtZero => f.write_str("the first member and frame at offset 0"),
            Expected::Checkpoint => f.write_str("a checkpoint in RON"),
            Expected::History => f.write_str("the history lists in RON"),
            Expected::WholeLastLine => f.write_str("a line break after the last line"),
            Expected::LogLine => f.write_str(
                "a log line (game time matching its tick, an event name, ticks never going back)",
            ),
            Expected::Utf8 => f.write_str("UTF-8 text"),
        }
    }
}

/// `line N: expected WHAT, found WHAT` (each part when known).
impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        write!(f, "expected {}", self.expected)?;
        if let Some(found) = &self.found {
            write!(f, ", found {found}")?;
        }
        Ok(())
    }
}

impl std::error::Error for TextError {}

/// How a found line or value is shown: quoted, escaped.
pub(super) fn quoted(s: &str) -> String {
    format!("{s:?}")
}
