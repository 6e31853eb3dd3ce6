//! A synthetic teehistorian file described in RON (or JSON), written by
//! the [`Recorder`]: header fields, then records by kind, in order.
//!
//! ```ron
//! (
//!     header: {"game_uuid": "4f3c5d1e-0000-4000-8000-000000000001", "map_name": "dm1"},
//!     records: [
//!         tick(1),
//!         ex(name: "teehistorian-joinver6@ddnet.tw", data: "00"),
//!         join(cid: 0),
//!         player_new(cid: 0, x: 100, y: 200),
//!         message(cid: 0, name: "Cl_Say", fields: {"team": 0, "message": "hi"}),
//!         tick(2),
//!         player_diff(cid: 0, dx: 1, dy: 0),
//!         tick_skip(dt: 10),
//!         drop(cid: 0, reason: ""),
//!     ],
//! )
//! ```
//!
//! `tick(N)` begins tick N the way DDNet's writer does: the TICK_SKIP is
//! written only when the next record needs one (a player record may keep
//! the tick implicit by its cid order). `tick_skip(dt: N)` writes one as
//! given. Every other record is written as it is, in the current tick, by
//! its kind's name in `teehistorian dump`; a game message is raw bytes
//! (`hex`) or a message of the 0.6 (or `version: "0.7"`) tables by name
//! with its fields; an extension is named (its UUID is DDNet's for that
//! name) or given by `uuid`, with its payload as hex. FINISH ends the file
//! unless `finish: false`. Deterministic: the header holds no clock.

use super::header::{Header, HeaderInfo};
use super::message::{ConsoleCommand, Ex, ExMessage, Input, Message};
use super::recorder::Recorder;
use crate::bytes::{Blob, Text};
use crate::codec::SpecError;
use crate::packet::Version;
use crate::packet::msg::{Fields, Layout, MsgHeader};
use serde::Deserialize;

fn yes() -> bool {
    true
}

/// The file: header fields and records.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TeehistorianSpec {
    /// The header's fields by their JSON names (`teehistorian dump`'s
    /// header); `version` defaults to 2, `config` and `tuning` to `{}`,
    /// `uuids` to `[]`, the rest to absent.
    #[serde(default)]
    pub header: serde_json::Map<String, serde_json::Value>,
    /// The records, in order.
    #[serde(default)]
    pub records: Vec<SpecRecord>,
    /// Write FINISH at the end (default `true`).
    #[serde(default = "yes")]
    pub finish: bool,
}

/// A record of the spec: a record kind of `teehistorian dump`, or `tick`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SpecRecord {
    /// Begin this tick; the TICK_SKIP is written when DDNet's would be.
    Tick(i32),
    /// An explicit TICK_SKIP: the next tick is the last + `dt` + 1.
    TickSkip {
        /// Ticks skipped.
        dt: i32,
    },
    /// PLAYER_NEW.
    PlayerNew {
        /// The client id.
        cid: i32,
        /// Position x.
        x: i32,
        /// Position y.
        y: i32,
    },
    /// PLAYER_DIFF.
    PlayerDiff {
        /// The client id.
        cid: i32,
        /// Change of x.
        dx: i32,
        /// Change of y.
        dy: i32,
    },
    /// PLAYER_OLD.
    PlayerOld {
        /// The client id.
        cid: i32,
    },
    /// INPUT_NEW.
    InputNew {
        /// The client id.
        cid: i32,
        /// The ten ints.
        input: Vec<i32>,
    },
    /// INPUT_DIFF.
    InputDiff {
        /// The client id.
        cid: i32,
        /// The change of each of the ten ints.
        dinput: Vec<i32>,
    },
    /// A game message from a client: `hex`, or `name` and `fields`.
    Message {
        /// The client id.
        cid: i32,
        /// The message's bytes (id and body) as hex.
        #[serde(default)]
        hex: Option<String>,
        /// A message name of the tables (`Cl_Say`, `INFO`, ...).
        #[serde(default)]
        name: Option<String>,
        /// Its fields by name (as `packet decode` shows them).
        #[serde(default)]
        fields: Option<serde_json::Map<String, serde_json::Value>>,
        /// Whose tables: `"0.6"` (default) or `"0.7"`.
        #[serde(default)]
        version: Option<String>,
    },
    /// JOIN.
    Join {
        /// The client id.
        cid: i32,
    },
    /// DROP.
    Drop {
        /// The client id.
        cid: i32,
        /// Why.
        reason: String,
    },
    /// CONSOLE_COMMAND.
    ConsoleCommand {
        /// Who ran it.
        cid: i32,
        /// `CFGFLAG_*` bits.
        flags: i32,
        /// The command.
        cmd: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
    },
    /// An extension record: `name` or `uuid`, and its payload.
    Ex {
        /// DDNet's name (`teehistorian-player-name@ddnet.org`); any name
        /// gives the UUID DDNet would compute for it.
        #[serde(default)]
        name: Option<String>,
        /// The UUID, for one without a name.
        #[serde(default)]
        uuid: Option<String>,
        /// The payload as hex.
        #[serde(default)]
        data: String,
    },
}

fn fail<T>(path: String, expected: impl Into<String>) -> Result<T, SpecError> {
    Err(SpecError::field(path, expected))
}

/// A built file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The teehistorian file.
    pub bytes: Vec<u8>,
    /// Records written (TICK_SKIPs the writer added and FINISH included).
    pub records: usize,
}

impl TeehistorianSpec {
    /// Reads a RON spec (`Option` fields need no `Some(..)`).
    pub fn from_ron(text: &str) -> Result<TeehistorianSpec, SpecError> {
        crate::codec::spec::from_ron(text)
    }

    /// Reads a JSON spec.
    pub fn from_json(text: &str) -> Result<TeehistorianSpec, SpecError> {
        crate::codec::spec::from_json(text)
    }

    /// Records the file. Errors name the record (`records[3].cid: ...`).
    pub fn build(&self) -> Result<Built, SpecError> {
        let mut header = self.header.clone();
        for (key, default) in [
            ("version", serde_json::json!(2)),
            ("config", serde_json::json!({})),
            ("tuning", serde_json::json!({})),
            ("uuids", serde_json::json!([])),
        ] {
            header.entry(key).or_insert(default);
        }
        let info: HeaderInfo = serde_json::from_value(header.into())
            .or_else(|e| fail("header".into(), format!("teehistorian header fields ({e})")))?;
        let mut rec = Recorder::new(&Header::from_info(info));
        for (i, record) in self.records.iter().enumerate() {
            let at = format!("records[{i}]");
            let msg = match record {
                SpecRecord::Tick(tick) => {
                    rec.tick(*tick);
                    continue;
                }
                SpecRecord::TickSkip { dt } => Message::TickSkip { dt: *dt },
                SpecRecord::PlayerNew { cid, x, y } => Message::PlayerNew {
                    cid: *cid,
                    x: *x,
                    y: *y,
                },
                SpecRecord::PlayerDiff { cid, dx, dy } => Message::PlayerDiff {
                    cid: *cid,
                    dx: *dx,
                    dy: *dy,
                },
                SpecRecord::PlayerOld { cid } => Message::PlayerOld { cid: *cid },
                SpecRecord::InputNew { cid, input } => Message::InputNew {
                    cid: *cid,
                    input: ten(&at, "input", input)?,
                },
                SpecRecord::InputDiff { cid, dinput } => Message::InputDiff {
                    cid: *cid,
                    dinput: ten(&at, "dinput", dinput)?,
                },
                SpecRecord::Message {
                    cid,
                    hex,
                    name,
                    fields,
                    version,
                } => Message::NetMessage {
                    cid: *cid,
                    data: Blob::from(message_bytes(&at, hex, name, fields, version)?),
                },
                SpecRecord::Join { cid } => Message::Join { cid: *cid },
                SpecRecord::Drop { cid, reason } => Message::Drop {
                    cid: *cid,
                    reason: Text::from(reason.as_str()),
                },
                SpecRecord::ConsoleCommand {
                    cid,
                    flags,
                    cmd,
                    args,
                } => ConsoleCommand {
                    cid: *cid,
                    flags: *flags,
                    cmd: Text::from(cmd.as_str()),
                    args: args.iter().map(|a| Text::from(a.as_str())).collect(),
                }
                .into(),
                SpecRecord::Ex { name, uuid, data } => {
                    let uuid = match (name, uuid) {
                        (Some(name), None) => crate::packer::calculate_uuid(name),
                        (None, Some(u)) => match u.parse() {
                            Ok(u) => u,
                            Err(e) => return fail(format!("{at}.uuid"), format!("a UUID ({e})")),
                        },
                        _ => return fail(at, "an extension with `name` or `uuid` (one of them)"),
                    };
                    let data = match crate::bytes::parse_hex(data) {
                        Ok(d) => d,
                        Err(e) => return fail(format!("{at}.data"), format!("hex bytes ({e})")),
                    };
                    Message::Ex(Box::new(ExMessage {
                        ex: Ex::UnknownEx {
                            uuid,
                            data: Blob::from(data),
                        },
                        trailing: Blob::default(),
                    }))
                }
            };
            if let Err(e) = rec.record_as_is(&msg) {
                return fail(at, e.to_string());
            }
        }
        if self.finish {
            rec.finish();
        }
        let bytes = rec.into_bytes();
        let records = match super::SliceReader::new(&bytes, crate::codec::Mode::Lenient) {
            Ok((_, reader)) => reader.take_while(Result::is_ok).count(),
            Err(_) => 0,
        };
        Ok(Built { bytes, records })
    }
}

/// An input's ten ints.
fn ten(at: &str, field: &str, ints: &[i32]) -> Result<Input, SpecError> {
    match ints.try_into() {
        Ok(input) => Ok(input),
        Err(_) => fail(
            format!("{at}.{field}"),
            format!("10 ints, found {}", ints.len()),
        ),
    }
}

/// A game message's bytes: `hex`, or the message `name` names in the
/// tables of `version` with `fields`.
fn message_bytes(
    at: &str,
    hex: &Option<String>,
    name: &Option<String>,
    fields: &Option<serde_json::Map<String, serde_json::Value>>,
    version: &Option<String>,
) -> Result<Vec<u8>, SpecError> {
    let version = match version.as_deref() {
        None | Some("0.6") => Version::V06,
        Some("0.7") => Version::V07,
        Some(v) => {
            return fail(
                format!("{at}.version"),
                format!("\"0.6\" or \"0.7\", found {v:?}"),
            );
        }
    };
    let (name, fields) = match (hex, name) {
        (Some(hex), None) if fields.is_none() => {
            return crate::bytes::parse_hex(hex)
                .or_else(|e| fail(format!("{at}.hex"), format!("hex bytes ({e})")));
        }
        (None, Some(name)) => (name, fields.clone().unwrap_or_default()),
        _ => return fail(at.into(), "a message as `hex`, or as `name` and `fields`"),
    };
    let Some(header) = MsgHeader::by_name(version, None, name) else {
        return fail(
            format!("{at}.name"),
            format!("a message name of {version}'s tables, found {name:?}"),
        );
    };
    let Some(layout) = Layout::of(version, &header) else {
        return fail(
            format!("{at}.name"),
            "a message whose fields are known (else give `hex`)",
        );
    };
    let fields = layout
        .fields_from_json(&fields)
        .or_else(|e| fail(format!("{at}.fields.{}", e.field), e.expected))?;
    let message = crate::packet::Message {
        version,
        header,
        body: &[],
        fields: Some(Ok(Fields {
            fields,
            trailing: &[],
        })),
    };
    let mut out = Vec::new();
    message.encode(&mut out, version);
    Ok(out)
}
