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
#[cfg(feature = "zlib")]
pub mod grid;
#[cfg(feature = "zlib")]
pub mod info;
pub mod items;
#[cfg(feature = "zlib")]
pub mod lint;
#[cfg(feature = "render")]
pub mod plot;
pub mod quads;
#[cfg(feature = "render")]
pub mod render;
#[cfg(feature = "zlib")]
pub mod rules;
#[cfg(test)]
pub(crate) mod tests;
pub mod tiles;
#[cfg(feature = "zlib")]
pub mod write;

pub use datafile::{
    Datafile, HEADER_LEN, ITEM_HEADER_LEN, ITEM_TYPE_LEN, ITEMTYPE_EX, Item, ItemType, Layout,
    Magic,
};

use crate::codec::{Codec, DecodeError, Mode, Reader};
use crate::report::Finding;
use items::{Group, Kind, Layer, LayerBody, MapItem, Physics, PointForm, TilesLayer};
use serde::Serialize;
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

    /// Every layer its group holds, in group order: groups whose range
    /// is outside the layer items (DDNet refuses the map) are passed
    /// over, and a layer a group before holds is not given again.
    pub fn placements(&self) -> Vec<Placement> {
        let layers = self.layer_items();
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for (group, (_, g)) in self.groups().enumerate() {
            let (Ok(start), Ok(num)) = (
                usize::try_from(g.start_layer),
                usize::try_from(g.num_layers),
            ) else {
                continue;
            };
            let Some(items) = layers.get(start..start.saturating_add(num)) else {
                continue;
            };
            for (layer, &item) in items.iter().enumerate() {
                if seen.insert(item) {
                    out.push(Placement { group, layer, item });
                }
            }
        }
        out
    }

    /// The layer DDNet's loader takes for physics `p`: the last tiles
    /// layer of that physics among the groups' layers, with its item
    /// index.
    pub fn physics_layer(&self, p: Physics) -> Option<(usize, &TilesLayer<'a>)> {
        self.placements()
            .into_iter()
            .rev()
            .find_map(|at| match self.layer(at.item) {
                Some(Layer {
                    body: LayerBody::Tiles(t),
                    ..
                }) if t.physics() == Some(p) => Some((at.item, t)),
                _ => None,
            })
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

/// Where a group puts a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The group's index among the groups.
    pub group: usize,
    /// The layer's index in its group.
    pub layer: usize,
    /// The layer's item index.
    pub item: usize,
}

impl Placement {
    /// `G.L`: how commands name a layer.
    pub fn name(&self) -> String {
        format!("{}.{}", self.group, self.layer)
    }
}

/// True if `head` starts like a datafile: `DATA` or `ATAD`, then version
/// 3 or 4.
pub fn is_map(head: &[u8]) -> bool {
    let version = head.get(4..8).map(datafile::le_i32);
    (head.starts_with(b"DATA") || head.starts_with(b"ATAD")) && matches!(version, Some(3 | 4))
}

/// Where the map of a file given as a map lies: a map file is all map;
/// a demo holds the map its recorder embedded (`demo`, `teehistorian
/// simulate --map`, `map` commands and the Python package take either).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapBytes {
    /// The map's bytes within the file.
    pub range: std::ops::Range<usize>,
    /// The map is a demo's.
    pub embedded: bool,
}

/// Why a file given as a map holds none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoMap {
    /// A demo that does not decode up to its map.
    Demo(crate::codec::DecodeError),
    /// A demo without a map (DDNet writes none when it has no map data).
    NotEmbedded,
}

impl std::fmt::Display for NoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoMap::Demo(e) => write!(f, "{e}"),
            NoMap::NotEmbedded => f.write_str("the demo embeds no map"),
        }
    }
}

impl std::error::Error for NoMap {}

impl MapBytes {
    /// The map of `file`: the map a demo embeds, or (anything else) the
    /// whole file, not checked to be a map.
    pub fn find(file: &[u8]) -> Result<MapBytes, NoMap> {
        if !crate::demo::is_demo(file) {
            return Ok(MapBytes {
                range: 0..file.len(),
                embedded: false,
            });
        }
        let events = crate::demo::Events::new(file).map_err(NoMap::Demo)?;
        let map = events.map();
        if map.is_empty() {
            return Err(NoMap::NotEmbedded);
        }
        // `map` is a slice of `file`: where it starts.
        let start = map.as_ptr() as usize - file.as_ptr() as usize;
        Ok(MapBytes {
            range: start..start + map.len(),
            embedded: true,
        })
    }

    /// The map's bytes in `file` (the file [`MapBytes::find`] read;
    /// none in a shorter one).
    pub fn of<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        file.get(self.range.clone()).unwrap_or_default()
    }
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
