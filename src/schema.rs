#![doc = include_str!("schema.md")]

use serde::Serialize;

/// The version of every JSON shape teeoracle prints. It changes when a
/// field is renamed, removed or changes meaning; new fields and new
/// `kind`s do not change it.
pub const SCHEMA_VERSION: u32 = 1;

/// A JSON document: `kind`, `schema_version`, then the value's fields.
#[derive(Serialize)]
pub struct Document<'a, T: Serialize> {
    /// What the document is (`check`, `teehistorian_stats`, ...).
    pub kind: &'a str,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The fields.
    #[serde(flatten)]
    pub value: &'a T,
}

impl<'a, T: Serialize> Document<'a, T> {
    /// A document of `kind` holding `value`'s fields.
    pub fn new(kind: &'a str, value: &'a T) -> Self {
        Document {
            kind,
            schema_version: SCHEMA_VERSION,
            value,
        }
    }
}

/// The first line of every JSON Lines stream.
#[derive(Serialize)]
pub struct StreamStart<'a> {
    /// Always `start`.
    pub kind: &'static str,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The command that printed it, e.g. `teehistorian dump`.
    pub command: &'a str,
    /// The input as named (`-` for standard input).
    pub input: &'a str,
}

impl<'a> StreamStart<'a> {
    /// The start line for `command` reading `input`.
    pub fn new(command: &'a str, input: &'a str) -> Self {
        StreamStart {
            kind: "start",
            schema_version: SCHEMA_VERSION,
            command,
            input,
        }
    }
}
