//! Map files (`.map`): DDNet's and Teeworlds' datafile container
//! ([`Datafile`], `src/engine/shared/datafile.cpp`) and the map items in
//! it ([`items`], `src/game/mapitems.h`): version, info, images,
//! envelopes and their points, groups, layers (tiles, quads, sounds;
//! DDNet's game, front, tele, speedup, switch and tune layers), sounds,
//! and the UUID-typed extension items; what the data blocks hold
//! ([`tiles`], [`quads`]: tiles, quads, sound sources, text). Every demo
//! embeds one, every teehistorian header names one by SHA-256.
//!
//! Decoding then encoding gives the file back byte for byte: the
//! container keeps what its writer stored (sizes, tables, each item's
//! size field, compressed blocks as they are), and each typed item keeps
//! the ints it does not know. DDNet's rules for a valid map are
//! [`Datafile::faults`] (the container) and [`rules`] (the items and the
//! tiles), as findings.
//!
//! ```
//! use teeoracle::codec::{Codec, encode_to_vec};
//! use teeoracle::demo::Demo;
//! use teeoracle::map::Datafile;
//! let demo = std::fs::read("corpus/demo/ddnet-20.1/A_join_move_leave.demo")?;
//! let (demo, _) = Demo::decode(&demo)?;
//! let map = Datafile::decode(demo.map)?;
//! assert_eq!(map.version, 4);
//! assert_eq!(encode_to_vec(&map, ()), demo.map);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "zlib")]
pub mod check;
#[cfg(feature = "zlib")]
pub mod data;
mod datafile;
#[cfg(feature = "zlib")]
pub mod document;
pub mod items;
pub mod quads;
#[cfg(feature = "zlib")]
pub mod rules;
#[cfg(test)]
mod tests;
pub mod tiles;
#[cfg(feature = "zlib")]
pub mod write;

pub use datafile::{
    Datafile, HEADER_LEN, ITEM_HEADER_LEN, ITEM_TYPE_LEN, ITEMTYPE_EX, Item, ItemType, Layout,
    Magic,
};

use crate::codec::{Codec, DecodeError, Mode, Reader};
use crate::report::Finding;
use items::{Group, Kind, Layer, LayerBody, MapItem, PointForm, TilesLayer};
use std::collections::BTreeMap;
use uuid::Uuid;

/// A datafile's items, typed: one entry per item, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map<'a> {
    /// How each item is read (by its type, and for extension types the
    /// UUID its `ITEMTYPE_EX` item gives).
    pub kinds: Vec<Kind>,
    /// Each item typed, or why it is too short for its type's fields (its
    /// bytes are the datafile's).
    pub items: Vec<Result<MapItem<'a>, DecodeError>>,
}

impl<'a> Map<'a> {
    /// Types every item of `datafile`, as DDNet's map loader reads them.
    pub fn new(datafile: &Datafile<'a>) -> Map<'a> {
        let layout = datafile.layout();
        // The UUID of each extension type: the first `ITEMTYPE_EX` item
        // with that id, as DDNet looks it up.
        let mut uuids: BTreeMap<u16, Uuid> = BTreeMap::new();
        for item in datafile.items_of(ITEMTYPE_EX) {
            if let Ok(t) =
                items::UuidType::decode(&mut Reader::new(item.payload, Mode::Lenient), ())
            {
                uuids.entry(item.id()).or_insert(t.uuid);
            }
        }
        // Teeworlds 0.7 writes its points with tangents when an envelope
        // has version 3 or more; DDNet reads them so.
        let bezier = datafile
            .items_of(items::TYPE_ENVELOPE)
            .any(|i| i.ints().next().is_some_and(|v| v >= 3));
        let form = if bezier {
            PointForm::Bezier
        } else {
            PointForm::Basic
        };
        let mut kinds = Vec::with_capacity(datafile.items.len());
        let mut typed = Vec::with_capacity(datafile.items.len());
        for (item, &at) in datafile.items.iter().zip(&layout.items) {
            let kind = match item.type_id() {
                items::TYPE_VERSION => Kind::Version,
                items::TYPE_INFO => Kind::Info,
                items::TYPE_IMAGE => Kind::Image,
                items::TYPE_ENVELOPE => Kind::Envelope,
                items::TYPE_GROUP => Kind::Group,
                items::TYPE_LAYER => Kind::Layer,
                items::TYPE_ENVPOINTS => Kind::EnvPoints(form),
                items::TYPE_SOUND => Kind::Sound,
                ITEMTYPE_EX => Kind::UuidType,
                t if t > items::OFFSET_UUID_TYPE => match uuids.get(&t) {
                    Some(&uuid) => Kind::Extension(uuid),
                    None => Kind::Unknown,
                },
                _ => Kind::Unknown,
            };
            let mut r = Reader::at(item.payload, at + ITEM_HEADER_LEN as u64, Mode::Lenient);
            kinds.push(kind);
            typed.push(MapItem::decode(&mut r, kind));
        }
        Map {
            kinds,
            items: typed,
        }
    }

    /// Item `index` encoded again from its typed form (`None`: it is not
    /// typed).
    pub fn encode_item(&self, index: usize) -> Option<Vec<u8>> {
        let item = self.items.get(index)?.as_ref().ok()?;
        let mut out = Vec::new();
        item.encode(&mut out, self.kinds[index]);
        Some(out)
    }

    /// The groups, with their item indices.
    pub fn groups(&self) -> impl Iterator<Item = (usize, &Group<'a>)> + '_ {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Ok(MapItem::Group(g)) => Some((i, g)),
                _ => None,
            })
    }

    /// The item index of each layer item, in order (typed or not): what
    /// groups' `start_layer` counts.
    pub fn layer_items(&self) -> Vec<usize> {
        self.kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| **k == Kind::Layer)
            .map(|(i, _)| i)
            .collect()
    }

    /// Layer item `index`, typed.
    pub fn layer(&self, index: usize) -> Option<&Layer<'a>> {
        match self.items.get(index) {
            Some(Ok(MapItem::Layer(l))) => Some(l),
            _ => None,
        }
    }

    /// Every tiles layer with its item index.
    pub fn tiles_layers(&self) -> impl Iterator<Item = (usize, &TilesLayer<'a>)> + '_ {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Ok(MapItem::Layer(Layer {
                    body: LayerBody::Tiles(t),
                    ..
                })) => Some((i, t)),
                _ => None,
            })
    }
}

/// True if `head` starts like a datafile: `DATA` or `ATAD`, then version
/// 3 or 4.
pub fn is_map(head: &[u8]) -> bool {
    let version = head.get(4..8).map(datafile::le_i32);
    (head.starts_with(b"DATA") || head.starts_with(b"ATAD")) && matches!(version, Some(3 | 4))
}

/// Findings by rule: the first of each rule is kept, its repeats counted
/// on it, in the order rules were first met.
#[derive(Default)]
pub(crate) struct Tally {
    rules: Vec<&'static str>,
    findings: Vec<Finding>,
    counts: Vec<u64>,
}

impl Tally {
    /// Counts one breach of `rule`; `finding` describes it if it is the
    /// first.
    pub(crate) fn add(&mut self, rule: &'static str, finding: impl FnOnce() -> Finding) {
        match self.rules.iter().position(|&r| r == rule) {
            Some(i) => self.counts[i] += 1,
            None => {
                self.rules.push(rule);
                self.findings.push(finding());
                self.counts.push(1);
            }
        }
    }

    /// The findings, each repeated rule with its count.
    pub(crate) fn finish(self) -> Vec<Finding> {
        self.findings
            .into_iter()
            .zip(self.counts)
            .map(|(f, n)| if n > 1 { f.times(n) } else { f })
            .collect()
    }
}
