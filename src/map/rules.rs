//! What DDNet 20.1's map loader (`CMap::Load`, `src/engine/shared/map.cpp`)
//! requires of a map's items and tiles, each rule a finding: the version
//! item, groups and the layers they hold, each tiles layer's fields, the
//! game layer, and each tiles layer's data block against its size. What
//! the loader refuses fails; what it resets or drops quietly is a note
//! or a warning, and says so.
//!
//! Images are the client's (`CMapImages`): one it cannot load is drawn
//! as nothing, with a warning, and the map plays.
//!
//! The loader checks a tiles layer's data only when the layer is used:
//! a bad block empties that layer, and only the game layer's refuses the
//! map. Tile indices the game does not know are notes: DDNet's editor
//! does not place them (`IsValidGameTile` and its kin), and the game
//! ignores them.

use super::data::block;
use super::grid::{GridFault, grid};
use super::items::{Layer, LayerBody, MapItem, Physics, TYPE_VERSION, TilesLayer};
use super::quads::data_string;
use super::tiles::{SkipFault, TileKind, Tiles, known_tile};
use super::{Datafile, ITEM_HEADER_LEN, Layout, Map, Tally};
use crate::compression::zlib::Fault;
use crate::report::{Code, Finding, Severity};
use crate::snapshot::items::ints_to_str;
use std::collections::BTreeSet;

/// A tiles layer the loader accepted, where its group puts it.
struct Placed<'m, 'a> {
    group: usize,
    layer: usize,
    item: usize,
    tiles: &'m TilesLayer<'a>,
}

impl Placed<'_, '_> {
    fn name(&self) -> String {
        format!("tiles layer {} of group {}", self.layer, self.group)
    }
}

/// Every rule of DDNet's map loader over `map` (the typed items of
/// `datafile`) and the blocks of its tiles layers, each read in turn
/// (inflated up to `cap` bytes) and dropped, as findings.
pub fn check(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64) -> Vec<Finding> {
    let layout = datafile.layout();
    let mut tally = Tally::default();
    version(datafile, map, &layout, &mut tally);
    let placed = groups(datafile, map, &layout, &mut tally);
    let game = game_layer(&placed, &layout, &mut tally);
    let mut used = BTreeSet::new();
    for p in &placed {
        tiles_data(datafile, cap, &layout, p, game, &mut used, &mut tally);
    }
    images(datafile, map, cap, &layout, &mut tally);
    bezier_points(map, &layout, &mut tally);
    tally.finish()
}

/// What DDNet's client needs of an image to load it (`CMapImages`):
/// a name (an external one is loaded by it), format 1 in version 2, and
/// an embedded one's size and pixels. It loads the map either way and
/// shows a warning.
fn images(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64, layout: &Layout, tally: &mut Tally) {
    let images = map
        .items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            Ok(MapItem::Image(image)) => Some((i, image)),
            _ => None,
        });
    for (n, (i, image)) in images.enumerate() {
        let at = layout.items[i];
        let warn = |tally: &mut Tally, rule: &'static str, why: String| {
            tally.add(rule, || {
                Finding::new(
                    Severity::Warn,
                    Code::MapItem,
                    format!(
                        "image {n} {why}: DDNet's client does not load it (the layers using it \
                         are drawn without it) and warns"
                    ),
                )
                .at(at)
            });
        };
        let name = usize::try_from(image.name)
            .ok()
            .and_then(|b| block(datafile, b, cap).ok())
            .is_some_and(|b| data_string(&b).is_some_and(|s| !s.is_empty()));
        if !name && image.external != 0 {
            warn(tally, "image_name", "is external but has no name".into());
            continue;
        }
        if image.version > 1 && image.format != Some(1) {
            let format = image.format.map_or("none".into(), |f| f.to_string());
            warn(
                tally,
                "image_format",
                format!(
                    "has version {} and format {format}, not 1 (RGBA)",
                    image.version
                ),
            );
            continue;
        }
        if image.external != 0 {
            continue;
        }
        if image.width <= 0 || image.height <= 0 {
            let size = format!("{}x{}", image.width, image.height);
            warn(tally, "image_size", format!("is embedded with size {size}"));
            continue;
        }
        let want = 4 * i64::from(image.width) * i64::from(image.height);
        let have = usize::try_from(image.data)
            .ok()
            .and_then(|b| datafile.declared_size(b))
            .unwrap_or(0);
        if have < want {
            warn(
                tally,
                "image_data",
                format!(
                    "is embedded, {}x{}, but its block {} holds {have} bytes of the {want} \
                     its pixels take",
                    image.width, image.height, image.data
                ),
            );
        }
    }
}

/// DDNet's bezier extension item gives tangents to the envelope points
/// only when it has one for each point; otherwise DDNet ignores it.
fn bezier_points(map: &Map<'_>, layout: &Layout, tally: &mut Tally) {
    let points = map.items.iter().find_map(|item| match item {
        Ok(MapItem::EnvPoints(p)) => Some(p.points.len()),
        _ => None,
    });
    for (i, item) in map.items.iter().enumerate() {
        let Ok(MapItem::BezierPoints(b)) = item else {
            continue;
        };
        if Some(b.points.len()) != points {
            tally.add("bezier_count", || {
                note(
                    Code::MapItem,
                    format!(
                        "the bezier extension item has tangents for {} points, the envelope \
                         points item {} points: DDNet ignores the tangents",
                        b.points.len(),
                        points.unwrap_or(0)
                    ),
                )
                .at(layout.items[i])
            });
        }
    }
}

fn fail(code: Code, message: String) -> Finding {
    Finding::new(Severity::Fail, code, message)
}

fn note(code: Code, message: String) -> Finding {
    Finding::new(Severity::Note, code, message)
}

/// `ValidateMapVersion`: a version item (type 0, id 0) of version 1.
fn version(datafile: &Datafile<'_>, map: &Map<'_>, layout: &Layout, tally: &mut Tally) {
    let Some(i) = datafile
        .items
        .iter()
        .position(|i| i.type_id() == TYPE_VERSION && i.id() == 0)
    else {
        tally.add("version_missing", || {
            fail(
                Code::MapItem,
                "no version item (type 0, id 0): DDNet's loader refuses the map".into(),
            )
        });
        return;
    };
    let at = layout.items[i];
    match &map.items[i] {
        Ok(MapItem::Version(v)) if v.version != 1 => tally.add("version", || {
            fail(
                Code::MapItem,
                format!(
                    "map version {}: DDNet's loader loads only version 1",
                    v.version
                ),
            )
            .at(at + ITEM_HEADER_LEN as u64)
        }),
        Ok(_) => {}
        Err(_) => tally.add("version_truncated", || {
            fail(
                Code::MapItem,
                format!(
                    "the version item has {} bytes, not the 4 of its version: DDNet's loader \
                     refuses the map",
                    datafile.items[i].payload.len()
                ),
            )
            .at(at)
        }),
    }
}

/// The groups' layer ranges, and each layer they hold: what
/// `CMap::Load` checks before it looks for the game layer. Returns the
/// tiles layers it accepts, in group order.
fn groups<'m, 'a>(
    datafile: &Datafile<'a>,
    map: &'m Map<'a>,
    layout: &Layout,
    tally: &mut Tally,
) -> Vec<Placed<'m, 'a>> {
    let layer_items = map.layer_items();
    let mut used = BTreeSet::new();
    let mut placed = Vec::new();
    let group_items = map
        .kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| **k == super::items::Kind::Group)
        .map(|(i, _)| i);
    for (g, item) in group_items.enumerate() {
        let at = layout.items[item];
        let Ok(MapItem::Group(group)) = &map.items[item] else {
            tally.add("group_truncated", || {
                fail(
                    Code::MapItem,
                    format!(
                        "group {g} has {} bytes, fewer than the 28 of a version 1 group: \
                         DDNet's loader refuses the map",
                        datafile.items[item].payload.len()
                    ),
                )
                .at(at)
            });
            continue;
        };
        let (start, num) = (group.start_layer, group.num_layers);
        if start < 0 || num < 0 || i64::from(start) + i64::from(num) > layer_items.len() as i64 {
            tally.add("group_layers", || {
                fail(
                    Code::MapItem,
                    format!(
                        "group {g} holds layers {start} to {}, the map has {}: DDNet's loader \
                         refuses the map",
                        i64::from(start) + i64::from(num) - 1,
                        layer_items.len()
                    ),
                )
                .at(at + ITEM_HEADER_LEN as u64 + 20)
            });
            continue;
        }
        for l in 0..num as usize {
            let item = layer_items[start as usize + l];
            let at = layout.items[item];
            if !used.insert(item) {
                tally.add("layer_shared", || {
                    fail(
                        Code::MapItem,
                        format!(
                            "layer {l} of group {g} is in another group too: DDNet's loader \
                             refuses the map"
                        ),
                    )
                    .at(at)
                });
                continue;
            }
            match &map.items[item] {
                Ok(MapItem::Layer(layer)) => {
                    if let Some(tiles) = layer_rules(layer, g, l, at, tally) {
                        placed.push(Placed {
                            group: g,
                            layer: l,
                            item,
                            tiles,
                        });
                    }
                }
                _ => truncated_layer(datafile.items[item].payload, g, l, at, tally),
            }
        }
    }
    placed
}

/// A layer item too short for its fields.
fn truncated_layer(payload: &[u8], g: usize, l: usize, at: u64, tally: &mut Tally) {
    let len = payload.len();
    let kind = payload.get(4..8).map(super::datafile::le_i32);
    if len < 12 {
        tally.add("layer_truncated", || {
            fail(
                Code::MapItem,
                format!(
                    "layer {l} of group {g} has {len} bytes, fewer than the 12 every layer has: \
                     DDNet's loader refuses the map"
                ),
            )
            .at(at)
        });
    } else if kind == Some(super::items::LAYER_TILES) {
        tally.add("tiles_truncated", || {
            fail(
                Code::MapItem,
                format!(
                    "tiles layer {l} of group {g} has {len} bytes, fewer than the 60 of a \
                     version 2 tiles layer: DDNet's loader refuses the map"
                ),
            )
            .at(at)
        });
    } else {
        tally.add("layer_short", || {
            Finding::new(
                Severity::Warn,
                Code::MapItem,
                format!(
                    "layer {l} of group {g} (kind {}) has {len} bytes, too few for its kind's \
                     fields: DDNet's loader does not check it, and its client reads past the item",
                    kind.unwrap_or_default()
                ),
            )
            .at(at)
        });
    }
}

/// One layer's fields (`UpgradeAndValidateTilesLayerItem`,
/// `EnsureTileLayerProperties`); the tiles layer if the loader accepts it.
fn layer_rules<'m, 'a>(
    layer: &'m Layer<'a>,
    g: usize,
    l: usize,
    at: u64,
    tally: &mut Tally,
) -> Option<&'m TilesLayer<'a>> {
    let field = |n: u64| at + ITEM_HEADER_LEN as u64 + 4 * n;
    if layer.version != 0 {
        tally.add("layer_version", || {
            note(
                Code::MapItem,
                format!(
                    "layer {l} of group {g} has version {} in its unused version field: DDNet's \
                     loader resets it to 0",
                    layer.version
                ),
            )
            .at(field(0))
        });
    }
    let LayerBody::Tiles(tiles) = &layer.body else {
        return None;
    };
    let what = format!("tiles layer {l} of group {g}");
    let refuse = |tally: &mut Tally, rule: &'static str, why: String, at: u64| {
        tally.add(rule, || {
            fail(
                Code::MapItem,
                format!("{what} {why}: DDNet's loader refuses the map"),
            )
            .at(at)
        });
    };
    if !(2..=4).contains(&tiles.version) {
        refuse(
            tally,
            "tiles_version",
            format!("has version {}, not 2 to 4", tiles.version),
            field(3),
        );
        return None;
    }
    let flags = tiles.physics_flags();
    if flags.len() > 1 {
        refuse(
            tally,
            "tiles_flags",
            format!(
                "has flags {}: at most one physics layer flag may be set",
                tiles.flags
            ),
            field(6),
        );
        return None;
    }
    let physics = tiles.physics();
    if let Some(p) = physics.filter(|&p| tiles.physics_data(p).is_none()) {
        refuse(
            tally,
            "tiles_physics_truncated",
            format!(
                "is a {} layer whose item ends before its {} block field",
                p.name(),
                p.name()
            ),
            at,
        );
        return None;
    }
    if tiles.version >= 3 && tiles.name.is_none() {
        refuse(
            tally,
            "tiles_name_truncated",
            format!(
                "has version {} but its item ends before its name",
                tiles.version
            ),
            at,
        );
        return None;
    }
    if tiles.width < 2 || tiles.height < 2 {
        refuse(
            tally,
            "tiles_size",
            format!(
                "is {} by {} tiles: width and height must be at least 2",
                tiles.width, tiles.height
            ),
            field(4),
        );
        return None;
    }
    let name = match &tiles.name {
        None => String::new(),
        Some(ints) => match ints_to_str(ints) {
            Ok(name) => name,
            Err(_) => {
                refuse(
                    tally,
                    "tiles_name",
                    "has a name that is not UTF-8".into(),
                    field(15),
                );
                return None;
            }
        },
    };
    match physics {
        Some(p) => {
            if name != p.name() {
                tally.add("physics_name", || {
                    note(
                        Code::MapItem,
                        format!(
                            "{what} is the {} layer but named {name:?}: DDNet's loader renames \
                             it {:?}",
                            p.name(),
                            p.name()
                        ),
                    )
                    .at(at)
                });
            }
            if tiles.color != [255; 4] {
                tally.add("physics_color", || {
                    note(
                        Code::MapItem,
                        format!(
                            "{what} is the {} layer with colour {:?}: DDNet's loader makes it \
                             white",
                            p.name(),
                            tiles.color
                        ),
                    )
                    .at(field(7))
                });
            }
            if layer.flags & 1 != 0 {
                tally.add("physics_detail", || {
                    note(
                        Code::MapItem,
                        format!(
                            "{what} is the {} layer marked as detail: DDNet's loader clears \
                             the flag",
                            p.name()
                        ),
                    )
                    .at(field(2))
                });
            }
        }
        None if tiles.color.iter().any(|c| !(0..=255).contains(c)) => {
            refuse(
                tally,
                "tiles_color",
                format!("has colour {:?}, outside 0 to 255", tiles.color),
                field(7),
            );
            return None;
        }
        None => {}
    }
    for p in Physics::ALL[1..].iter().filter(|&&p| Some(p) != physics) {
        if let Some(index) = tiles.physics_data(*p).filter(|&i| i != -1) {
            tally.add("physics_unused", || {
                note(
                    Code::MapItem,
                    format!(
                        "{what} is no {} layer but names {} block {index}: DDNet's loader \
                         resets it to -1",
                        p.name(),
                        p.name()
                    ),
                )
                .at(at)
            });
        }
    }
    Some(tiles)
}

/// The game layer: DDNet's loader refuses a map without one, and takes
/// the last one when there are several.
fn game_layer<'p, 'm, 'a>(
    placed: &'p [Placed<'m, 'a>],
    layout: &Layout,
    tally: &mut Tally,
) -> Option<&'p Placed<'m, 'a>> {
    let games: Vec<&Placed> = placed
        .iter()
        .filter(|p| p.tiles.physics() == Some(Physics::Game))
        .collect();
    let last = games.last().copied();
    match (games.len(), last) {
        (0, _) | (_, None) => tally.add("game_missing", || {
            fail(
                Code::GameLayer,
                "no game layer (a tiles layer with flag 1 in a group): DDNet's loader refuses \
                 the map"
                    .into(),
            )
        }),
        (1, _) => {}
        (n, Some(last)) => tally.add("game_several", || {
            Finding::new(
                Severity::Warn,
                Code::GameLayer,
                format!(
                    "{n} game layers: DDNet's loader and its collision use the last, {}",
                    last.name()
                ),
            )
            .at(layout.items[last.item])
        }),
    }
    last
}

/// One tiles layer's block (`ValidateAndUnpackTilesLayerData` and the
/// data processor it adds).
fn tiles_data(
    datafile: &Datafile<'_>,
    cap: u64,
    layout: &Layout,
    p: &Placed<'_, '_>,
    game: Option<&Placed<'_, '_>>,
    used: &mut BTreeSet<i32>,
    tally: &mut Tally,
) {
    let at = layout.items[p.item];
    let physics = p.tiles.physics();
    let is_game = physics == Some(Physics::Game);
    let index = p.tiles.tiles_data().unwrap_or(-1);
    let refuse = |tally: &mut Tally, rule: &'static str, why: String| {
        tally.add(rule, || {
            fail(
                Code::MapTiles,
                format!("{} {why}: DDNet's loader refuses the map", p.name()),
            )
            .at(at)
        });
    };
    if index < 0 || index as usize >= datafile.data.len() {
        refuse(
            tally,
            "tiles_block",
            format!("names block {index}, the map has {}", datafile.data.len()),
        );
        return;
    }
    if !used.insert(index) {
        refuse(
            tally,
            "tiles_block_shared",
            format!("names block {index}, which a tiles layer before it names too"),
        );
        return;
    }
    let count = i64::from(p.tiles.width) * i64::from(p.tiles.height);
    let kind = TileKind::of(physics);
    if count > i64::from(i32::MAX) || count * kind.size() as i64 > i64::from(i32::MAX) {
        refuse(
            tally,
            "tiles_too_big",
            format!(
                "is {} by {} tiles, too many for DDNet's int sizes",
                p.tiles.width, p.tiles.height
            ),
        );
        return;
    }
    let game_count = game.map_or(0, |g| i64::from(g.tiles.width) * i64::from(g.tiles.height));
    if physics.is_some_and(|p| p != Physics::Game) && count < game_count {
        refuse(
            tally,
            "physics_smaller",
            format!(
                "has {count} tiles, fewer than the game layer's {game_count}: DDNet's \
                 collision reads every physics layer at the game layer's size"
            ),
        );
        return;
    }
    let count = count as usize;
    // From here DDNet reads the block when the layer is used: a fault
    // empties the layer, and only the game layer's refuses the map.
    let block_at = layout.data[index as usize];
    let (severity, outcome) = if is_game {
        (Severity::Fail, "DDNet's loader refuses the map")
    } else {
        (Severity::Warn, "DDNet loads the map with this layer empty")
    };
    let fault = |tally: &mut Tally, rule: &'static str, why: String| {
        tally.add(rule, || {
            Finding::new(
                severity,
                Code::MapTiles,
                format!("{}'s tiles (block {index}) {why}: {outcome}", p.name()),
            )
            .at(block_at)
        });
    };
    let grid = match grid(datafile, p.tiles, cap) {
        Ok(grid) => grid,
        // Over our cap, not DDNet's rule: the block's own finding says so.
        Err(GridFault::Block(
            Fault::OverCap { .. } | Fault::SizeDiffers { over_cap: true, .. },
        )) => {
            return;
        }
        Err(GridFault::Block(_)) => {
            fault(
                tally,
                "tiles_no_data",
                "give no data (the block's map_data finding says why)".into(),
            );
            return;
        }
        Err(GridFault::SkipKind) => {
            fault(
                tally,
                "tiles_skip_kind",
                "use skip runs (layer version 4), which DDNet reads only in drawn and game \
                 layers"
                    .into(),
            );
            return;
        }
        Err(GridFault::OverCap { .. }) => {
            tally.add("tiles_over_cap", || {
                Finding::new(
                    Severity::Warn,
                    Code::MapTiles,
                    format!(
                        "{} expands to {count} tiles, more bytes than the cap of {cap} \
                         (--max-decompressed raises it): not checked",
                        p.name()
                    ),
                )
                .at(block_at)
            });
            return;
        }
        Err(GridFault::Skip(e)) => {
            let why = match e {
                SkipFault::Reserved { at } => {
                    format!("have a non-zero reserved byte at stored tile {at}")
                }
                SkipFault::Short { got } => {
                    format!("expand to {got} tiles, fewer than the layer's {count}")
                }
                SkipFault::Long { used } => {
                    let stored = stored_tiles(datafile, index as usize, cap);
                    format!(
                        "fill the layer's {count} tiles after {used} of their {stored} stored tiles"
                    )
                }
            };
            fault(tally, "tiles_skip", why);
            return;
        }
        Err(GridFault::Short { got, .. }) => {
            fault(
                tally,
                "tiles_short",
                format!("are {got} tiles, fewer than the layer's {count}"),
            );
            return;
        }
        // Checked above.
        Err(GridFault::NoBlock { .. } | GridFault::Size { .. }) => return,
    };
    if p.tiles.version < 4
        && let Some(why) = unused_bytes(&grid, count)
    {
        fault(tally, "tiles_unused_bytes", why);
        return;
    }
    if physics.is_some() {
        let unknown: Vec<(usize, u8)> = grid
            .kinds()
            .into_iter()
            .take(count)
            .enumerate()
            .filter(|&(_, k)| !known_tile(physics, k))
            .collect();
        if let Some(&(first, k)) = unknown.first() {
            let n = unknown.len();
            tally.add("tile_index", || {
                note(
                    Code::TileIndex,
                    format!(
                        "{} has {n} tile(s) of kinds DDNet's editor does not place in a {} \
                         layer, the first kind {k} at tile {first}: the game ignores them",
                        p.name(),
                        physics.map_or("", Physics::name)
                    ),
                )
                .at(block_at)
                .times(n as u64)
            });
        }
    }
}

/// How many tiles block `index` stores (for a message).
fn stored_tiles(datafile: &Datafile<'_>, index: usize, cap: u64) -> usize {
    block(datafile, index, cap).map_or(0, |b| b.len() / TileKind::Tile.size())
}

/// DDNet's check of the bytes a version 2 or 3 layer's tiles must leave
/// 0: a `CTile`'s skip and reserved bytes, a speedup tile's reserved byte.
fn unused_bytes(tiles: &Tiles, count: usize) -> Option<String> {
    match tiles {
        Tiles::Tile(t) => t.iter().take(count).enumerate().find_map(|(i, t)| {
            if t.skip != 0 {
                Some(format!(
                    "have skip {} at tile {i}, which only version 4 layers use",
                    t.skip
                ))
            } else if t.reserved != 0 {
                Some(format!("have reserved byte {} at tile {i}", t.reserved))
            } else {
                None
            }
        }),
        Tiles::Speedup(t) => t
            .iter()
            .take(count)
            .position(|t| t.reserved != 0)
            .map(|i| format!("have a non-zero reserved byte at tile {i}")),
        _ => None,
    }
}
