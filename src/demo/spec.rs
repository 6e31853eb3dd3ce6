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
    #[serde(default)]
    pub events: Vec<Event>,
}

/// A snapshot recorded at `tick` (`items`, default none), or a message.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Event {
    #[serde(default)]
    pub tick: Option<i32>,
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
    #[serde(rename = "type")]
    pub type_id: i32,
    pub id: i32,
    #[serde(default)]
    pub data: Vec<i32>,
}

/// A built demo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    pub bytes: Vec<u8>,
    /// What is written but not what DDNet would write (one line each).
    pub warnings: Vec<String>,
    pub snapshots: usize,
    pub messages: usize,
}

fn hex_field(field: &str, text: &str, len: Option<usize>) -> Result<Vec<u8>, String> {
    let bytes =
        crate::bytes::parse_hex(text).map_err(|why| format!("{field}: bad hex {text:?}: {why}"))?;
    match len {
        Some(n) if bytes.len() != n => Err(format!(
            "{field}: expected {} hex digits, got {} in {text:?}",
            2 * n,
            2 * bytes.len()
        )),
        _ => Ok(bytes),
    }
}

impl DemoSpec {
    /// Reads a RON spec (`Option` fields need no `Some(..)`).
    pub fn from_ron(text: &str) -> Result<DemoSpec, String> {
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| e.to_string())
    }

    /// Reads a JSON spec.
    pub fn from_json(text: &str) -> Result<DemoSpec, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The map file to read, if any (relative to the spec file).
    pub fn map_path(&self) -> Option<&str> {
        self.map_file.as_deref().filter(|p| !p.is_empty())
    }

    /// Records the demo, with `map` as the embedded map. Errors name the
    /// field (`events[3].message: ...`).
    pub fn build(&self, map: &[u8]) -> Result<Built, String> {
        let mut warnings = Vec::new();
        let crc = hex_field("map_crc", &self.map_crc, Some(4))?;
        let map_crc = u32::from_be_bytes(crc.try_into().unwrap_or_default());
        let map_sha256 = match &self.map_sha256 {
            Some(s) => {
                let b = hex_field("map_sha256", s, Some(32))?;
                Some(<[u8; 32]>::try_from(b).unwrap_or_default())
            }
            None => None,
        };
        let flavor = match self.huffman.as_str() {
            "ddnet" => Flavor::Ddnet,
            "legacy" => Flavor::Legacy,
            other => {
                return Err(format!(
                    "huffman: expected \"ddnet\" or \"legacy\", got {other:?}"
                ));
            }
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
                        let at = format!("{at}.items[{j}]");
                        if !(0..=MAX_TYPE).contains(&item.type_id) {
                            return Err(format!(
                                "{at}.type: {} outside 0..={MAX_TYPE}",
                                item.type_id
                            ));
                        }
                        if !(0..=MAX_ID).contains(&item.id) {
                            return Err(format!("{at}.id: {} outside 0..={MAX_ID}", item.id));
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
                    let data = hex_field(&format!("{at}.message"), hex, None)?;
                    if !recorder.record_message(&data) {
                        return Err(format!(
                            "{at}.message: {} bytes, DDNet's recorder drops a message this large",
                            data.len()
                        ));
                    }
                    messages += 1;
                }
                (Some(_), _, Some(_)) => {
                    return Err(format!(
                        "{at}: both `tick` and `message`; an event is a snapshot \
                         (tick, items) or a message (message)"
                    ));
                }
                (None, Some(_), _) => {
                    return Err(format!("{at}: `items` without `tick`"));
                }
                (None, None, None) => {
                    return Err(format!(
                        "{at}: empty; an event is a snapshot (tick, items) or a message (message)"
                    ));
                }
            }
        }
        for (k, &m) in self.markers.iter().enumerate() {
            if !recorder.add_marker(m) {
                return Err(format!(
                    "markers[{k}]: tick {m} refused by DDNet's recorder (at most {}, \
                     ticks >= 0, each at least 50 ticks after the one before)",
                    super::MAX_TIMELINE_MARKERS
                ));
            }
        }
        Ok(Built {
            bytes: recorder.finish(),
            warnings,
            snapshots,
            messages,
        })
    }
}
