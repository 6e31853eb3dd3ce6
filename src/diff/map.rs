//! The map adapter: a map read as [`Ticks`], by meaning. A map has no
//! ticks; its "tick" -1 holds its items, one keyed event each (category
//! `item:TYPE`, keyed by what the item is: `layer G.L` by the group that
//! holds it, `image N`, `group N`, ...), with block indices replaced by
//! what the blocks hold (names as text, other blocks by SHA-256), so a
//! block moved is no difference, and each envelope with its own points
//! (not its place in the envelope points item, which is not an item
//! here). Then "tick" y is row y of every tiles
//! layer a group holds: one keyed event per tile that is not all zero
//! (category `tiles:G.L`, shown as `G.L (x,y)`), so a tile added,
//! removed or changed is one difference at its position. The header is
//! the datafile's version and the info item's texts.
//!
//! Memory: the tiles of every tiles layer (as DDNet's loader holds
//! them, each block inflated up to the cap), and one row's events at a
//! time.

use super::{Event, TickContent, Ticks};
use crate::codec::DecodeError;
use crate::map::data::block;
use crate::map::grid::grid;
use crate::map::info::{Summary, block_text, name};
use crate::map::items::{LayerBody, MapItem};
use crate::map::tiles::Tiles;
use crate::map::{Datafile, Map};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// One tiles layer's tiles.
struct Layer {
    /// `G.L`.
    name: String,
    width: usize,
    height: usize,
    tiles: Tiles,
}

/// A map read as [`Ticks`] (see the module's documentation).
pub struct MapTicks<'a> {
    bytes: &'a [u8],
    items: BTreeMap<String, Event>,
    layers: Vec<Layer>,
    /// The current "tick": -1 (items), then rows; `None` before the first.
    at: Option<i32>,
    rows: i32,
    raw: Vec<u8>,
}

impl<'a> MapTicks<'a> {
    /// Reads the map `bytes` (blocks inflated up to `cap` bytes each); the
    /// header's JSON as [`compare`](super::compare) takes it.
    pub fn new(bytes: &'a [u8], cap: u64) -> Result<(Value, MapTicks<'a>), DecodeError> {
        let datafile = Datafile::decode(bytes)?;
        let map = Map::new(&datafile);
        let summary = Summary::new(&datafile, &map, bytes.len() as u64, cap);
        let header = match &summary.info {
            Some(i) => json!({
                "datafile_version": datafile.version,
                "author": i.author,
                "map_version": i.map_version,
                "credits": i.credits,
                "license": i.license,
                "settings": i.settings,
            }),
            None => json!({ "datafile_version": datafile.version }),
        };
        let items = items(&datafile, &map, cap);
        let mut layers = Vec::new();
        for p in map.placements() {
            let Some(LayerBody::Tiles(t)) = map.layer(p.item).map(|l| &l.body) else {
                continue;
            };
            if let Ok(tiles) = grid(&datafile, t, cap) {
                layers.push(Layer {
                    name: p.name(),
                    // At least 1 each: `grid` gave tiles.
                    width: t.width as usize,
                    height: t.height as usize,
                    tiles,
                });
            }
        }
        let rows = layers.iter().map(|l| l.height).max().unwrap_or(0);
        let ticks = MapTicks {
            bytes,
            items,
            layers,
            at: None,
            rows: i32::try_from(rows).unwrap_or(i32::MAX),
            raw: Vec::new(),
        };
        Ok((header, ticks))
    }
}

/// Every item but the info (the header has its texts) as a keyed event.
fn items(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64) -> BTreeMap<String, Event> {
    let mut placed = BTreeMap::new();
    for p in map.placements() {
        placed.insert(p.item, p.name());
    }
    let mut ordinal: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    let sha = |index: i32| {
        usize::try_from(index)
            .ok()
            .and_then(|b| block(datafile, b, cap).ok())
            .map(|b| hex::encode(Sha256::digest(&b)))
    };
    // Each envelope is shown with its points (the points item is their
    // shared list, so it is not an item of its own here).
    let points = map.items.iter().find_map(|item| match item {
        Ok(MapItem::EnvPoints(p)) => Some(p.points.as_slice()),
        _ => None,
    });
    for (i, item) in map.items.iter().enumerate() {
        let (kind, mut fields) = match item {
            Ok(MapItem::Info(_) | MapItem::EnvPoints(_)) => continue,
            Ok(item) => (item.name(), serde_json::to_value(item).unwrap_or_default()),
            Err(e) => (
                "untyped",
                json!({ "type_id": datafile.items[i].type_id(), "error": e.to_string() }),
            ),
        };
        let n = ordinal.entry(kind).or_insert(0);
        let key = match (kind, placed.get(&i)) {
            ("layer", Some(at)) => format!("layer {at}"),
            ("layer", None) => format!("layer #{n} (in no group)"),
            _ => format!("{kind} {n}"),
        };
        *n += 1;
        if let Value::Object(m) = &mut fields {
            m.shift_remove("type");
            match item {
                Ok(MapItem::Image(image)) => {
                    m.insert("name".into(), json!(block_text(datafile, image.name, cap)));
                    m.insert("data".into(), json!(sha(image.data)));
                }
                Ok(MapItem::Sound(sound)) => {
                    m.insert("name".into(), json!(block_text(datafile, sound.name, cap)));
                    m.insert("data".into(), json!(sha(sound.data)));
                }
                Ok(MapItem::Group(g)) => {
                    m.insert("name".into(), json!(g.name.as_ref().map(|n| name(n))));
                }
                Ok(MapItem::Envelope(e)) => {
                    m.insert("name".into(), json!(e.name.as_ref().map(|n| name(n))));
                    let start = usize::try_from(e.start_point).unwrap_or(usize::MAX);
                    let num = usize::try_from(e.num_points).unwrap_or(0);
                    let own = points
                        .and_then(|p| p.get(start..start.saturating_add(num).min(p.len())))
                        .unwrap_or_default();
                    m.shift_remove("start_point");
                    m.insert("points".into(), json!(own));
                }
                Ok(MapItem::Layer(layer)) => {
                    if let Some(Value::Object(body)) = m.get_mut("body") {
                        layer_fields(datafile, &layer.body, body, cap, &sha);
                    }
                }
                _ => {}
            }
        }
        out.insert(
            key.clone(),
            Event {
                category: format!("item:{kind}"),
                key: Some(key),
                fields,
                ident: None,
            },
        );
    }
    out
}

/// A layer's body fields by meaning: its name as text, its blocks by
/// what they hold (tiles are compared row by row; a layer whose tiles do
/// not read says why).
fn layer_fields(
    datafile: &Datafile<'_>,
    body: &LayerBody<'_>,
    m: &mut serde_json::Map<String, Value>,
    cap: u64,
    sha: &dyn Fn(i32) -> Option<String>,
) {
    let name_of = |n: &Option<[i32; 3]>| json!(n.as_ref().map(|n| name(n)));
    match body {
        LayerBody::Tiles(t) => {
            m.insert("name".into(), name_of(&t.name));
            m.shift_remove("data");
            m.shift_remove("physics");
            m.insert("physics".into(), json!(t.physics()));
            if let Err(e) = grid(datafile, t, cap) {
                m.insert("tiles".into(), json!(e.to_string()));
            }
        }
        LayerBody::Quads(q) => {
            m.insert("name".into(), name_of(&q.name));
            m.insert("data".into(), json!(sha(q.data)));
        }
        LayerBody::Sounds(s) => {
            m.insert("name".into(), name_of(&s.name));
            m.insert("data".into(), json!(sha(s.data)));
        }
        LayerBody::Other { .. } => {}
    }
}

impl Layer {
    /// Tile `i`'s fields, `None` when all its bytes are 0 (air).
    fn tile(&self, i: usize) -> Option<Value> {
        let value = match &self.tiles {
            Tiles::Tile(t) => t.get(i).filter(|t| **t != Default::default()).map(json_of),
            Tiles::Tele(t) => t.get(i).filter(|t| **t != Default::default()).map(json_of),
            Tiles::Speedup(t) => t.get(i).filter(|t| **t != Default::default()).map(json_of),
            Tiles::Switch(t) => t.get(i).filter(|t| **t != Default::default()).map(json_of),
            Tiles::Tune(t) => t.get(i).filter(|t| **t != Default::default()).map(json_of),
        };
        value.flatten()
    }

    /// Row `y`'s tiles as stored (equal bytes: equal tiles).
    fn row_bytes(&self, y: usize, out: &mut Vec<u8>) {
        self.tiles.write(y * self.width..(y + 1) * self.width, out);
    }
}

fn json_of<T: serde::Serialize>(t: &T) -> Option<Value> {
    serde_json::to_value(t).ok()
}

impl Ticks for MapTicks<'_> {
    fn next_tick(&mut self) -> Result<Option<i32>, DecodeError> {
        let next = self.at.map_or(-1, |t| t + 1);
        self.raw.clear();
        if next >= self.rows {
            self.at = Some(self.rows);
            return Ok(None);
        }
        self.at = Some(next);
        if next < 0 {
            self.raw.extend_from_slice(self.bytes);
        } else {
            let y = next as usize;
            for l in self.layers.iter().filter(|l| y < l.height) {
                self.raw.extend_from_slice(l.name.as_bytes());
                self.raw.push(b':');
                l.row_bytes(y, &mut self.raw);
            }
        }
        Ok(Some(next))
    }

    fn raw(&self) -> &[u8] {
        &self.raw
    }

    fn content(&self, _detail: &dyn Fn(&str) -> bool) -> TickContent {
        let Some(at) = self.at else {
            return TickContent::default();
        };
        let items = if at < 0 {
            self.items.clone()
        } else {
            let y = at as usize;
            let mut items = BTreeMap::new();
            for l in self.layers.iter().filter(|l| y < l.height) {
                for x in 0..l.width {
                    let Some(fields) = l.tile(y * l.width + x) else {
                        continue;
                    };
                    // Keys sort by layer, then x (padded); the event shows
                    // the position.
                    items.insert(
                        format!("{}\u{0}{x:010}", l.name),
                        Event {
                            category: format!("tiles:{}", l.name),
                            key: Some(format!("{} ({x},{y})", l.name)),
                            fields,
                            ident: None,
                        },
                    );
                }
            }
            items
        };
        TickContent {
            events: Vec::new(),
            items,
            new_items: true,
            ..TickContent::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Change, Options, compare};
    use crate::map::tests::ints;
    use crate::map::tests::zlib::{NONE, build, group, tiles, tiles_layer};

    /// A map whose game layer is 4 by 3 tiles, all solid but `changes`
    /// (index, tile index) and, if `front`, with a front layer of air.
    fn map(changes: &[(usize, u8)], front: bool) -> Vec<u8> {
        let mut game = tiles(12, 1);
        for &(i, index) in changes {
            game[4 * i] = index;
        }
        let mut items = vec![(0, 0, ints(&[1])), (5, 0, tiles_layer(4, 3, 1, 0, NONE))];
        let mut blocks = vec![game];
        if front {
            items.push((5, 1, tiles_layer(4, 3, 8, -1, [-1, -1, 1, -1, -1])));
            blocks.push(tiles(12, 0));
        }
        items.push((4, 0, group(0, items.len() as i32 - 1)));
        build(&items, &blocks)
    }

    fn diff(a: &[u8], b: &[u8]) -> crate::diff::Report {
        let (ha, mut ta) = MapTicks::new(a, 1 << 20).unwrap();
        let (hb, mut tb) = MapTicks::new(b, 1 << 20).unwrap();
        compare(&ha, &hb, &mut ta, &mut tb, &Options::default()).unwrap()
    }

    #[test]
    fn an_identical_map_has_no_difference() {
        let a = map(&[(5, 2)], true);
        let report = diff(&a, &a.clone());
        assert!(report.same(), "{report:?}");
        // Items, then rows 0 to 2.
        assert_eq!(report.ticks, (4, 4));
    }

    #[test]
    fn a_changed_tile_is_found_at_its_position() {
        // Tile 6 is (2,1): solid to death; tile 11 is (3,2): solid to air.
        let report = diff(&map(&[], false), &map(&[(6, 2), (11, 0)], false));
        let found: Vec<_> = report
            .differences
            .iter()
            .map(|d| {
                let shown = d.old.as_ref().or(d.new.as_ref()).unwrap();
                (
                    d.tick,
                    d.category.as_str(),
                    shown.key.clone().unwrap(),
                    d.change,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (1, "tiles:0.0", "0.0 (2,1)".to_string(), Change::Changed),
                (2, "tiles:0.0", "0.0 (3,2)".to_string(), Change::Removed),
            ]
        );
        let index = &report.differences[0].fields;
        assert_eq!(
            (index[0].field.as_str(), &index[0].old, &index[0].new),
            ("index", &serde_json::json!(1), &serde_json::json!(2))
        );
        assert_eq!(report.summary["tiles:0.0"].changed, 1);
        assert_eq!(report.summary["tiles:0.0"].removed, 1);
    }

    /// A real map against itself with bytes flipped: comparing never
    /// panics, and a map that reads is the same as itself.
    fn mutated(flips: Vec<(u32, u8)>, cut: Option<u32>) -> bool {
        use crate::map::tests::zlib::{mutate, real_map};
        let bytes = mutate(&flips, cut);
        let Ok((h, mut t)) = MapTicks::new(&bytes, 1 << 22) else {
            return true;
        };
        let (hr, mut tr) = MapTicks::new(real_map(), 1 << 22).unwrap();
        let _ = compare(&hr, &h, &mut tr, &mut t, &Options::default());
        let (h2, mut t2) = MapTicks::new(&bytes, 1 << 22).unwrap();
        let (h3, mut t3) = MapTicks::new(&bytes, 1 << 22).unwrap();
        compare(&h2, &h3, &mut t2, &mut t3, &Options::default()).is_ok_and(|r| r.same())
    }

    #[test]
    fn prop_mutated_maps_compare_without_panic() {
        crate::testing::qc()
            .tests(100)
            .quickcheck(mutated as fn(Vec<(u32, u8)>, Option<u32>) -> bool);
    }

    #[test]
    fn a_layer_added_is_one_item_and_its_tiles() {
        let report = diff(&map(&[], false), &map(&[], true));
        let items: Vec<_> = report
            .differences
            .iter()
            .map(|d| (d.category.as_str(), d.change))
            .collect();
        // The front layer is air: only its item is new; the group holds
        // one more layer.
        assert_eq!(
            items,
            [
                ("item:group", Change::Changed),
                ("item:layer", Change::Added)
            ]
        );
    }
}
