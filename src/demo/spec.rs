//! A synthetic demo described in RON or JSON, written by [`DemoRecorder`]:
//! header fields, timeline markers, and snapshots and messages in order.
//!
//! ```ron
//! (
//!     map_name: "dm1",
//!     map_crc: "6e2b9d6b",
//!     events: [
//!         (tick: 100, items: [(type: 9, id: 0, data: [100, 1, 2])]),
//!         (message: "06 00 40 68 69 00"),
//!     ],
//! )
//! ```
//!
//! Everything is deterministic (the timestamp is a field, not the clock).
//! Items are written as given, in the given order: an item whose type has
//! a pre-agreed size but another data length is written anyway, with a
//! warning, so that invalid files can be made on purpose.

use super::{DemoRecorder, DemoStart};
use crate::codec::SpecError;
use crate::huffman::Flavor;
use crate::snapshot::{ItemSizes, MAX_ID, MAX_ITEMS, MAX_SIZE, MAX_TYPE, Snapshot};
use serde::{Deserialize, Serialize};

fn default_version() -> u8 {
    6
}
fn default_net_version() -> String {
    "0.6 626fce9a778df4d4".into()
}
fn default_kind() -> String {
    "server".into()
}
fn default_timestamp() -> String {
    "1970-01-01_00-00-00".into()
}
fn default_huffman() -> String {
    "ddnet".into()
}
fn default_stopped() -> bool {
    true
}

/// The demo: header fields, markers and events.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DemoSpec {
    /// TWDEMO version (default 6, DDNet's).
    #[serde(default = "default_version")]
    pub version: u8,
    /// Default `"0.6 626fce9a778df4d4"`; one starting with `0.7` selects
    /// Teeworlds 0.7's item sizes.
    #[serde(default = "default_net_version")]
    pub net_version: String,
    /// The map's name.
    pub map_name: String,
    /// 8 hex digits, as `demo dump` shows it.
    pub map_crc: String,
    /// 64 hex digits: the SHA-256 item (version 6 only).
    #[serde(default)]
    pub map_sha256: Option<String>,
    /// The map file to embed, relative to the spec file (read by the
    /// caller and passed to [`DemoSpec::build`]); none or empty for a demo
    /// without map data.
    #[serde(default)]
    pub map_file: Option<String>,
    /// `"server"` (default) or `"client"`.
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Default `"1970-01-01_00-00-00"`.
    #[serde(default = "default_timestamp")]
    pub timestamp: String,
    /// `"ddnet"` (default: DDNet >= 20.0) or `"legacy"` (older writers).
    #[serde(default = "default_huffman")]
    pub huffman: String,
    /// Timeline marker ticks.
    #[serde(default)]
    pub markers: Vec<i32>,
    /// `true` (default): the recorder is stopped, which fills in the
    /// header's length and timeline markers. `false`: the file as a
    /// recorder that was never stopped leaves it (DDNet 16.4 and Teeworlds
    /// 0.7.5 servers at shutdown): length 0, no timeline markers.
    #[serde(default = "default_stopped")]
    pub stopped: bool,
    /// Snapshots and messages, in order.
    #[serde(default)]
    pub events: Vec<SpecEvent>,
}

/// A snapshot recorded at `tick` (`items`, default none), or a message.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SpecEvent {
    /// The snapshot's tick.
    #[serde(default)]
    pub tick: Option<i32>,
    /// The snapshot's items, in order.
    #[serde(default)]
    pub items: Option<Vec<SpecItem>>,
    /// A message's raw bytes (message id and fields, packed) as hex;
    /// spaces and colons are ignored.
    #[serde(default)]
    pub message: Option<String>,
}

/// A snapshot item.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SpecItem {
    /// The item type (`type` in the spec).
    #[serde(rename = "type")]
    pub type_id: i32,
    /// The item id.
    pub id: i32,
    /// The item's ints.
    #[serde(default)]
    pub data: Vec<i32>,
}

/// A built demo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The demo file.
    pub bytes: Vec<u8>,
    /// What is written but not what DDNet would write (one line each,
    /// for people).
    pub warnings: Vec<String>,
    /// Snapshots recorded.
    pub snapshots: usize,
    /// Messages recorded.
    pub messages: usize,
}

/// A field of a spec, as its path (`events[3].message`): where a demo
/// spec's [`SpecError`] is.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecField {
    /// `map_crc`.
    MapCrc,
    /// `map_sha256`.
    MapSha256,
    /// `huffman`.
    Huffman,
    /// `events[index]` as a whole.
    Event {
        /// The event's index.
        index: usize,
    },
    /// `events[index].message`.
    Message {
        /// The event's index.
        index: usize,
    },
    /// `events[event].items[item].type`.
    ItemType {
        /// The event's index.
        event: usize,
        /// The item's index.
        item: usize,
    },
    /// `events[event].items[item].id`.
    ItemId {
        /// The event's index.
        event: usize,
        /// The item's index.
        item: usize,
    },
    /// `markers[index]`.
    Marker {
        /// The marker's index.
        index: usize,
    },
}

/// What a spec field was expected to hold (a demo spec's [`SpecError`]'s
/// problem).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Hex digits (spaces and colons between them are ignored).
    Hex(hex::FromHexError),
    /// This many hex digits.
    HexDigits {
        /// Digits expected.
        expected: usize,
        /// Digits found.
        found: usize,
    },
    /// `"ddnet"` or `"legacy"`.
    Flavor,
    /// A number in `0..=max`.
    Range {
        /// The number found.
        found: i64,
        /// The largest allowed.
        max: i64,
    },
    /// A message DDNet's recorder writes (at most `max` bytes).
    MessageTooLarge {
        /// Its bytes.
        len: usize,
        /// The most DDNet's recorder writes.
        max: usize,
    },
    /// A snapshot (`tick`, `items`) or a message (`message`), not both.
    TickAndMessage,
    /// `items` only with a `tick`.
    ItemsWithoutTick,
    /// A snapshot (`tick`, `items`) or a message (`message`), not nothing.
    EmptyEvent,
    /// A marker DDNet's recorder takes: at most 64, ticks >= 0, each at
    /// least 50 ticks after the one before.
    MarkerRefused {
        /// The marker's tick.
        tick: i32,
    },
}

impl std::fmt::Display for SpecField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecField::MapCrc => write!(f, "map_crc"),
            SpecField::MapSha256 => write!(f, "map_sha256"),
            SpecField::Huffman => write!(f, "huffman"),
            SpecField::Event { index } => write!(f, "events[{index}]"),
            SpecField::Message { index } => write!(f, "events[{index}].message"),
            SpecField::ItemType { event, item } => write!(f, "events[{event}].items[{item}].type"),
            SpecField::ItemId { event, item } => write!(f, "events[{event}].items[{item}].id"),
            SpecField::Marker { index } => write!(f, "markers[{index}]"),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Hex(hex::FromHexError::InvalidHexCharacter { c, index }) => {
                write!(f, "bad hex: {c:?} (digit {index}) is not a hex digit")
            }
            Problem::Hex(hex::FromHexError::OddLength) => {
                write!(f, "bad hex: an odd number of hex digits")
            }
            Problem::Hex(e) => write!(f, "bad hex: {e}"),
            Problem::HexDigits { expected, found } => {
                write!(f, "expected {expected} hex digits, found {found}")
            }
            Problem::Flavor => write!(f, "expected \"ddnet\" or \"legacy\""),
            Problem::Range { found, max } => write!(f, "expected 0..={max}, found {found}"),
            Problem::MessageTooLarge { len, max } => write!(
                f,
                "{len} bytes: DDNet's recorder drops a message over {max} bytes"
            ),
            Problem::TickAndMessage => write!(
                f,
                "both `tick` and `message`; an event is a snapshot (tick, items) or a message (message)"
            ),
            Problem::ItemsWithoutTick => write!(f, "`items` without `tick`"),
            Problem::EmptyEvent => write!(
                f,
                "empty; an event is a snapshot (tick, items) or a message (message)"
            ),
            Problem::MarkerRefused { tick } => write!(
                f,
                "tick {tick} refused by DDNet's recorder (at most {}, ticks >= 0, each at \
                 least 50 ticks after the one before)",
                super::MAX_TIMELINE_MARKERS
            ),
        }
    }
}

fn fail<T>(field: SpecField, problem: Problem) -> Result<T, SpecError<SpecField, Problem>> {
    Err(SpecError::field(field, problem))
}

/// Hex as a person writes it (spaces and colons between digits are
/// ignored), of `len` bytes if given.
fn hex_field(
    field: SpecField,
    text: &str,
    len: Option<usize>,
) -> Result<Vec<u8>, SpecError<SpecField, Problem>> {
    let digits: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ':')
        .collect();
    let bytes = match hex::decode(&digits) {
        Ok(b) => b,
        Err(e) => return fail(field, Problem::Hex(e)),
    };
    match len {
        Some(n) if bytes.len() != n => fail(
            field,
            Problem::HexDigits {
                expected: 2 * n,
                found: digits.len(),
            },
        ),
        _ => Ok(bytes),
    }
}

impl DemoSpec {
    /// Reads a RON spec (`Option` fields need no `Some(..)`).
    pub fn from_ron(text: &str) -> Result<DemoSpec, SpecError<SpecField, Problem>> {
        crate::codec::spec::from_ron(text)
    }

    /// Reads a JSON spec.
    pub fn from_json(text: &str) -> Result<DemoSpec, SpecError<SpecField, Problem>> {
        crate::codec::spec::from_json(text)
    }

    /// The map file to read, if any (relative to the spec file).
    pub fn map_path(&self) -> Option<&str> {
        self.map_file.as_deref().filter(|p| !p.is_empty())
    }

    /// Records the demo, with `map` as the embedded map. Errors name the
    /// field (`events[3].message: ...`).
    pub fn build(&self, map: &[u8]) -> Result<Built, SpecError<SpecField, Problem>> {
        let mut warnings = Vec::new();
        let crc = hex_field(SpecField::MapCrc, &self.map_crc, Some(4))?;
        let map_crc = u32::from_be_bytes(crc.try_into().unwrap_or_default());
        let map_sha256 = match &self.map_sha256 {
            Some(s) => {
                let b = hex_field(SpecField::MapSha256, s, Some(32))?;
                Some(<[u8; 32]>::try_from(b).unwrap_or_default())
            }
            None => None,
        };
        let flavor = match self.huffman.as_str() {
            "ddnet" => Flavor::Ddnet,
            "legacy" => Flavor::Legacy,
            _ => return fail(SpecField::Huffman, Problem::Flavor),
        };
        if !(3..=6).contains(&self.version) {
            warnings.push(format!(
                "version: {} is not 3 to 6, which demo readers accept",
                self.version
            ));
        }
        if map_sha256.is_some() && self.version < 6 {
            warnings.push(format!(
                "map_sha256: not written, version {} has no SHA-256 item",
                self.version
            ));
        }
        for (field, value, room) in [
            ("net_version", &self.net_version, 63),
            ("map_name", &self.map_name, 63),
            ("kind", &self.kind, 7),
            ("timestamp", &self.timestamp, 19),
        ] {
            if value.len() > room {
                warnings.push(format!(
                    "{field}: {} bytes, truncated to the header's {room}",
                    value.len()
                ));
            }
        }
        let sizes = if self.net_version.starts_with("0.7") {
            ItemSizes::teeworlds_07()
        } else {
            ItemSizes::ddnet_06()
        };
        let mut recorder = DemoRecorder::new(
            &DemoStart {
                version: self.version,
                net_version: &self.net_version,
                map_name: &self.map_name,
                map_crc,
                map_sha256,
                map,
                kind: &self.kind,
                timestamp: &self.timestamp,
                flavor,
            },
            sizes.clone(),
        );
        let (mut snapshots, mut messages) = (0, 0);
        let mut snap = Snapshot::new();
        for (i, event) in self.events.iter().enumerate() {
            let at = format!("events[{i}]");
            match (event.tick, &event.items, &event.message) {
                (Some(tick), items, None) => {
                    if !(0..super::MAX_TICK).contains(&i64::from(tick)) {
                        warnings.push(format!(
                            "{at}.tick: {tick} outside 0..{}: readers reject its marker",
                            super::MAX_TICK
                        ));
                    }
                    snap.clear();
                    for (j, item) in items.iter().flatten().enumerate() {
                        let (event, at) = (i, format!("{at}.items[{j}]"));
                        if !(0..=MAX_TYPE).contains(&item.type_id) {
                            let found = i64::from(item.type_id);
                            let max = i64::from(MAX_TYPE);
                            let field = SpecField::ItemType { event, item: j };
                            return fail(field, Problem::Range { found, max });
                        }
                        if !(0..=MAX_ID).contains(&item.id) {
                            let (found, max) = (i64::from(item.id), i64::from(MAX_ID));
                            let field = SpecField::ItemId { event, item: j };
                            return fail(field, Problem::Range { found, max });
                        }
                        let key = item.type_id << 16 | item.id;
                        if let Some(size) = sizes.get(item.type_id)
                            && size != item.data.len()
                        {
                            warnings.push(format!(
                                "{at} (type {} id {}, tick {tick}): {} ints, the type's \
                                 pre-agreed size is {size}: written as given",
                                item.type_id,
                                item.id,
                                item.data.len()
                            ));
                        }
                        if snap.get(key).is_some() {
                            warnings.push(format!(
                                "{at} (type {} id {}, tick {tick}): a second item with this key",
                                item.type_id, item.id
                            ));
                        }
                        snap.push(key, &item.data);
                    }
                    if snap.len() > MAX_ITEMS || snap.size() > MAX_SIZE {
                        warnings.push(format!(
                            "{at} (tick {tick}): {} items, {} bytes: over DDNet's snapshot \
                             limits ({MAX_ITEMS} items, {MAX_SIZE} bytes)",
                            snap.len(),
                            snap.size()
                        ));
                    }
                    recorder.record_snapshot(tick, &snap);
                    snapshots += 1;
                }
                (None, None, Some(hex)) => {
                    let field = SpecField::Message { index: i };
                    let data = hex_field(field, hex, None)?;
                    if !recorder.record_message(&data) {
                        let (len, max) = (data.len(), super::MAX_PAYLOAD);
                        return fail(field, Problem::MessageTooLarge { len, max });
                    }
                    messages += 1;
                }
                (Some(_), _, Some(_)) => {
                    return fail(SpecField::Event { index: i }, Problem::TickAndMessage);
                }
                (None, Some(_), _) => {
                    return fail(SpecField::Event { index: i }, Problem::ItemsWithoutTick);
                }
                (None, None, None) => {
                    return fail(SpecField::Event { index: i }, Problem::EmptyEvent);
                }
            }
        }
        for (k, &m) in self.markers.iter().enumerate() {
            if !recorder.add_marker(m) {
                return fail(
                    SpecField::Marker { index: k },
                    Problem::MarkerRefused { tick: m },
                );
            }
        }
        if !self.stopped && !self.markers.is_empty() {
            warnings.push("markers: not written, as the recorder is never stopped".into());
        }
        let bytes = match self.stopped {
            true => recorder.finish(),
            false => recorder.written().to_vec(),
        };
        Ok(Built {
            bytes,
            warnings,
            snapshots,
            messages,
        })
    }
}
