//! What `teeoracle map info` and `map dump` print: a map's summary (its
//! sizes, item counts, info texts, images, envelopes, groups and their
//! layers) and its items, typed, with each tiles layer's tiles counted
//! (or listed).

use super::data::block;
use super::grid::grid;
use super::items::{LayerBody, MapItem, Physics};
use super::tiles::{TileKind, Tiles};
use super::{Datafile, ItemType, Magic, Map, Placement};
use crate::bytes::Text;
use crate::codec::DecodeError;
use crate::snapshot::items::ints_to_str;
use serde::Serialize;
use std::collections::BTreeMap;

/// A map's summary.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The datafile's version (3 or 4).
    pub datafile_version: i32,
    /// Bytes of the file.
    pub size: u64,
    /// Items in all.
    pub items: usize,
    /// Data blocks in all.
    pub data_blocks: usize,
    /// Items by their `type` (as `map dump` names them; `untyped` for
    /// those too short for their type).
    pub item_counts: BTreeMap<&'static str, u64>,
    /// The info item's texts, if the map has one.
    pub info: Option<InfoTexts>,
    /// The images.
    pub images: Vec<ImageSummary>,
    /// The envelopes.
    pub envelopes: Vec<EnvelopeSummary>,
    /// The groups and the layers each holds.
    pub groups: Vec<GroupSummary>,
}

/// The info item's texts (each a block of text, or absent).
#[derive(Clone, Debug, Serialize)]
pub struct InfoTexts {
    /// The author.
    pub author: Option<Text<'static>>,
    /// The map's version text.
    pub map_version: Option<Text<'static>>,
    /// The credits.
    pub credits: Option<Text<'static>>,
    /// The license.
    pub license: Option<Text<'static>>,
    /// DDNet's server settings, one command each.
    pub settings: Vec<Text<'static>>,
}

/// One image.
#[derive(Clone, Debug, Serialize)]
pub struct ImageSummary {
    /// Its index among the images.
    pub index: usize,
    /// Its name.
    pub name: Option<Text<'static>>,
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
    /// Loaded from the game's `mapres` (no pixels in the map).
    pub external: bool,
}

/// One envelope.
#[derive(Clone, Debug, Serialize)]
pub struct EnvelopeSummary {
    /// Its index among the envelopes.
    pub index: usize,
    /// Its name.
    pub name: Option<Text<'static>>,
    /// Channels: 1 (sound), 3 (position), 4 (colour).
    pub channels: i32,
    /// How many points.
    pub points: i32,
}

/// One group.
#[derive(Clone, Debug, Serialize)]
pub struct GroupSummary {
    /// Its index among the groups.
    pub index: usize,
    /// Its name.
    pub name: Option<Text<'static>>,
    /// Offset in pixels (x, y).
    pub offset: [i32; 2],
    /// Parallax in percent (x, y).
    pub parallax: [i32; 2],
    /// Its layers.
    pub layers: Vec<LayerSummary>,
}

/// One layer of a group.
#[derive(Clone, Debug, Serialize)]
pub struct LayerSummary {
    /// `G.L`: its group's index and its index in the group.
    pub layer: String,
    /// Its item index.
    pub item: usize,
    /// `tiles`, `quads`, `sounds`, `other` or `untyped` (too short).
    pub kind: &'static str,
    /// Its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Text<'static>>,
    /// The physics layer it is (tiles layers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physics: Option<Physics>,
    /// Width in tiles (tiles layers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<i32>,
    /// Height in tiles (tiles layers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<i32>,
    /// How many quads (quads layers) or sound sources (sounds layers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// Its image or sound index (-1: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<i32>,
}

/// A name packed in ints (`StrToInts`), as text.
pub fn name(ints: &[i32]) -> Text<'static> {
    match ints_to_str(ints) {
        Ok(s) => Text::from(s.into_bytes()),
        Err(t) => t,
    }
}

/// Block `index` as text, up to its first NUL (`None`: no such block,
/// or it does not read).
pub fn block_text(datafile: &Datafile<'_>, index: i32, cap: u64) -> Option<Text<'static>> {
    let bytes = block(datafile, usize::try_from(index).ok()?, cap).ok()?;
    let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
    Some(Text::from(text.to_vec()))
}

impl Summary {
    /// The summary of `map` (the items of `datafile`, a file of `size`
    /// bytes), blocks read up to `cap` bytes each.
    pub fn new(datafile: &Datafile<'_>, map: &Map<'_>, size: u64, cap: u64) -> Summary {
        let mut item_counts = BTreeMap::new();
        for item in &map.items {
            let name = item.as_ref().map_or("untyped", MapItem::name);
            *item_counts.entry(name).or_insert(0) += 1;
        }
        let mut info = None;
        let (mut images, mut envelopes) = (Vec::new(), Vec::new());
        for item in map.items.iter().flatten() {
            match item {
                MapItem::Info(i) if info.is_none() => {
                    let text = |b: i32| block_text(datafile, b, cap);
                    let settings = i
                        .settings
                        .and_then(|b| usize::try_from(b).ok())
                        .and_then(|b| block(datafile, b, cap).ok())
                        .map(|b| {
                            super::quads::settings(&b)
                                .into_iter()
                                .map(|c| Text::from(c.to_vec()))
                                .collect()
                        })
                        .unwrap_or_default();
                    info = Some(InfoTexts {
                        author: text(i.author),
                        map_version: text(i.map_version),
                        credits: text(i.credits),
                        license: text(i.license),
                        settings,
                    });
                }
                MapItem::Image(i) => images.push(ImageSummary {
                    index: images.len(),
                    name: block_text(datafile, i.name, cap),
                    width: i.width,
                    height: i.height,
                    external: i.external != 0,
                }),
                MapItem::Envelope(e) => envelopes.push(EnvelopeSummary {
                    index: envelopes.len(),
                    name: e.name.as_ref().map(|n| name(n)),
                    channels: e.channels,
                    points: e.num_points,
                }),
                _ => {}
            }
        }
        let placements = map.placements();
        let groups = map
            .groups()
            .enumerate()
            .map(|(index, (_, g))| GroupSummary {
                index,
                name: g.name.as_ref().map(|n| name(n)),
                offset: [g.offset_x, g.offset_y],
                parallax: [g.parallax_x, g.parallax_y],
                layers: placements
                    .iter()
                    .filter(|p| p.group == index)
                    .map(|p| layer_summary(map, p))
                    .collect(),
            })
            .collect();
        Summary {
            datafile_version: datafile.version,
            size,
            items: datafile.items.len(),
            data_blocks: datafile.data.len(),
            item_counts,
            info,
            images,
            envelopes,
            groups,
        }
    }
}

fn layer_summary(map: &Map<'_>, p: &Placement) -> LayerSummary {
    let mut s = LayerSummary {
        layer: p.name(),
        item: p.item,
        kind: "untyped",
        name: None,
        physics: None,
        width: None,
        height: None,
        count: None,
        image: None,
    };
    let Some(layer) = map.layer(p.item) else {
        return s;
    };
    let packed = |n: &Option<[i32; 3]>| n.as_ref().map(|n| name(n));
    match &layer.body {
        LayerBody::Tiles(t) => {
            s.kind = "tiles";
            s.name = packed(&t.name);
            s.physics = t.physics();
            s.width = Some(t.width);
            s.height = Some(t.height);
            s.image = Some(t.image);
        }
        LayerBody::Quads(q) => {
            s.kind = "quads";
            s.name = packed(&q.name);
            s.count = Some(q.num_quads);
            s.image = Some(q.image);
        }
        LayerBody::Sounds(q) => {
            s.kind = "sounds";
            s.name = packed(&q.name);
            s.count = Some(q.num_sources);
            s.image = Some(q.sound);
        }
        LayerBody::Other { .. } => s.kind = "other",
    }
    s
}

/// `map dump`: the container and every item, typed.
#[derive(Debug, Serialize)]
pub struct Dump<'m, 'a> {
    /// The container's header fields.
    pub datafile: Container,
    /// Every item in file order.
    pub items: Vec<DumpItem<'m, 'a>>,
    /// Every data block.
    pub blocks: Vec<BlockSummary>,
    /// Every tiles layer a group holds: its tiles counted by kind, or
    /// listed.
    pub tiles: Vec<LayerTiles>,
}

/// The container's header fields, as stored.
#[derive(Clone, Debug, Serialize)]
pub struct Container {
    /// `data` or `atad`.
    pub magic: Magic,
    /// 3 or 4.
    pub version: i32,
    /// The header's size field.
    pub size: i32,
    /// The header's swaplen field.
    pub swaplen: i32,
    /// The item types table.
    pub item_types: Vec<ItemType>,
    /// Bytes after the last data block.
    pub trailing: usize,
}

/// One item.
#[derive(Debug, Serialize)]
pub struct DumpItem<'m, 'a> {
    /// Its index.
    pub index: usize,
    /// Its header's file byte.
    pub offset: u64,
    /// Its type.
    pub type_id: u16,
    /// Its id.
    pub id: u16,
    /// Bytes of its payload.
    pub size: usize,
    /// The item typed (its `type` says what it is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'m MapItem<'a>>,
    /// Why it is not typed: too short for its type's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'m DecodeError>,
}

/// One data block.
#[derive(Clone, Debug, Serialize)]
pub struct BlockSummary {
    /// Its index.
    pub index: usize,
    /// Its first byte.
    pub offset: u64,
    /// Bytes stored.
    pub stored: usize,
    /// Bytes it declares it inflates to (version 4), or stored.
    pub size: i64,
}

/// One tiles layer's tiles.
#[derive(Clone, Debug, Serialize)]
pub struct LayerTiles {
    /// `G.L`.
    pub layer: String,
    /// Its item index.
    pub item: usize,
    /// Its physics layer, if it is one.
    pub physics: Option<Physics>,
    /// The tile structure.
    pub tile_kind: TileKind,
    /// Width in tiles.
    pub width: i32,
    /// Height in tiles.
    pub height: i32,
    /// Tiles by kind byte (a `CTile`'s index, the others' type); air
    /// included.
    pub counts: BTreeMap<u8, u64>,
    /// Every tile, in rows from the top left (only when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiles: Option<Tiles>,
    /// Why the layer gives no tiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl<'m, 'a> Dump<'m, 'a> {
    /// The dump of `map` (the items of `datafile`); the tiles of the
    /// layers `listed` accepts (by `G.L`) are listed, the others' counted.
    pub fn new(
        datafile: &Datafile<'a>,
        map: &'m Map<'a>,
        cap: u64,
        listed: &dyn Fn(&str) -> bool,
    ) -> Dump<'m, 'a> {
        let layout = datafile.layout();
        let items = datafile
            .items
            .iter()
            .zip(&map.items)
            .enumerate()
            .map(|(index, (raw, typed))| DumpItem {
                index,
                offset: layout.items[index],
                type_id: raw.type_id(),
                id: raw.id(),
                size: raw.payload.len(),
                item: typed.as_ref().ok(),
                error: typed.as_ref().err(),
            })
            .collect();
        let blocks = datafile
            .data
            .iter()
            .enumerate()
            .map(|(index, d)| BlockSummary {
                index,
                offset: layout.data[index],
                stored: d.len(),
                size: datafile.declared_size(index).unwrap_or(0),
            })
            .collect();
        let tiles = map
            .placements()
            .iter()
            .filter_map(|p| {
                let t = match map.layer(p.item) {
                    Some(super::items::Layer {
                        body: LayerBody::Tiles(t),
                        ..
                    }) => t,
                    _ => return None,
                };
                let name = p.name();
                let mut out = LayerTiles {
                    item: p.item,
                    physics: t.physics(),
                    tile_kind: TileKind::of(t.physics()),
                    width: t.width,
                    height: t.height,
                    counts: BTreeMap::new(),
                    tiles: None,
                    error: None,
                    layer: name.clone(),
                };
                match grid(datafile, t, cap) {
                    Ok(g) => {
                        for k in g.kinds() {
                            *out.counts.entry(k).or_insert(0) += 1;
                        }
                        out.tiles = listed(&name).then_some(g);
                    }
                    Err(e) => out.error = Some(e.to_string()),
                }
                Some(out)
            })
            .collect();
        Dump {
            datafile: Container {
                magic: datafile.magic,
                version: datafile.version,
                size: datafile.size,
                swaplen: datafile.swaplen,
                item_types: datafile.item_types.clone(),
                trailing: datafile.trailing.len(),
            },
            items,
            blocks,
            tiles,
        }
    }
}
