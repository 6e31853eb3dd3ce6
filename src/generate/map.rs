//! Maps: a version item, a group and its tiles layers (a game layer of
//! tiles DDNet's editor places, sometimes a drawn layer), laid out as
//! DDNet's datafile writer lays them out (items by type, blocks deflated
//! at level 6). Edge maps are what DDNet loads with a note or a warning;
//! malformed ones break one rule of DDNet's reader or loader each, named
//! in the reason (the rule's name in `src/map/datafile.rs` and
//! `src/map/rules.rs`).

use super::{Kind, Made, Rng};
use crate::map::items::Physics;
use crate::map::tiles::known_tile;
pub use crate::map::write::{MapSpec, Written};
use crate::map::{ITEM_HEADER_LEN, Magic};
use crate::snapshot::items::str_to_ints;

fn ints(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A version 3 tiles layer item named `name` with `flags` (1: game),
/// its tiles in block `data`, DDNet's five physics blocks unset.
pub fn tiles_layer(width: i32, height: i32, flags: i32, data: i32, name: &str) -> Vec<u8> {
    let mut v = vec![0, 2, 0, 3, width, height, flags, 255, 255, 255, 255];
    v.extend([-1, 0, -1, data]);
    v.extend(str_to_ints(name.as_bytes(), 3));
    v.extend([-1; 5]);
    ints(&v)
}

/// A version 3 group of `layers` layers from layer 0, named "Game".
pub fn group(layers: i32) -> Vec<u8> {
    let mut v = vec![3, 0, 0, 100, 100, 0, layers, 0, 0, 0, 0, 0];
    v.extend(str_to_ints(b"Game", 3));
    ints(&v)
}

/// `n` game tiles of kinds DDNet's editor places (mostly air and
/// ground), flags 0, skip and reserved 0.
fn game_tiles(rng: &mut Rng, n: usize) -> Vec<u8> {
    let known: Vec<u8> = (0..=255u8)
        .filter(|&k| known_tile(Some(Physics::Game), k))
        .collect();
    let mut out = Vec::with_capacity(4 * n);
    for _ in 0..n {
        let k = match rng.below(4) {
            0 | 1 => 0,
            2 => 1,
            _ => *rng.pick(&known),
        };
        out.extend([k, 0, 0, 0]);
    }
    out
}

/// `n` drawn tiles: any index, any of the four flags.
fn drawn_tiles(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 * n);
    for _ in 0..n {
        out.extend([rng.below(256) as u8, rng.below(16) as u8, 0, 0]);
    }
    out
}

/// A valid map: the version item, one group with a game layer of
/// `width` by `height` tiles (block 0), and maybe a drawn layer (block 1).
pub fn valid(rng: &mut Rng, width: i32, height: i32) -> MapSpec {
    let n = (width * height) as usize;
    let drawn = rng.one_in(2);
    let mut items = vec![
        (0, 0, ints(&[1])),
        (4, 0, group(1 + i32::from(drawn))),
        (5, 0, tiles_layer(width, height, 1, 0, "Game")),
    ];
    let mut blocks = vec![game_tiles(rng, n)];
    if drawn {
        items.push((5, 1, tiles_layer(width, height, 0, 1, "Tiles")));
        blocks.push(drawn_tiles(rng, n));
    }
    MapSpec {
        items,
        blocks,
        version: 4,
        magic: Magic::Data,
    }
}

/// The edge cases' variants: DDNet's loader quirks (the fourth, a game
/// tile of a kind the editor does not place, is the `tile_unused` lint),
/// then one map per other lint rule. Edge case `i` is variant `i` modulo
/// their number, so the first 20 edge cases hold every rule.
const EDGE_QUIRKS: u64 = 7;
const LINT_EDGE: [&str; 13] = [
    "tele_number_zero",
    "tele_no_exit",
    "tele_no_entrance",
    "switch_number_zero",
    "speedup_force_zero",
    "tune_number_zero",
    "image_missing",
    "envelope_missing",
    "sound_missing",
    "uuid_type_short",
    "extension_unregistered",
    "item_type_unknown",
    "extension_unknown",
];

/// How many edge variants there are: after this many edge cases every
/// lint rule a map can trip has one.
pub const EDGE_VARIANTS: u64 = EDGE_QUIRKS + LINT_EDGE.len() as u64;

/// Map `index` of `kind`.
pub(crate) fn generate(rng: &mut Rng, kind: Kind, index: u64) -> Made {
    let (mut spec, width, height) = any_valid(rng);
    match kind {
        Kind::Valid => {
            let layers = spec.items.len() - 2;
            Made::valid(
                spec.write().bytes,
                format!("a {width}x{height} game layer and {layers} layer(s) in one group"),
            )
        }
        // The lint variants are `map_lint`'s ([`lint_rule`]).
        Kind::Edge => edge(rng, spec, index % EDGE_VARIANTS),
        Kind::Malformed => malformed(rng, &mut spec),
    }
}

/// A valid map of any size from 2 by 2 to 24 by 24, and its size: what
/// every map case starts from.
pub(crate) fn any_valid(rng: &mut Rng) -> (MapSpec, i32, i32) {
    let width = rng.int(2, 24);
    let height = rng.int(2, 24);
    (valid(rng, width, height), width, height)
}

/// The lint rule map case `index` of `kind` trips, if it is a lint
/// variant of the edge cases (made by `super::map_lint::generate`).
pub(crate) fn lint_rule(kind: Kind, index: u64) -> Option<&'static str> {
    let r = (index % EDGE_VARIANTS).checked_sub(EDGE_QUIRKS)?;
    (kind == Kind::Edge).then(|| LINT_EDGE[r as usize])
}

fn edge(rng: &mut Rng, mut spec: MapSpec, variant: u64) -> Made {
    let (bytes, why) = match variant {
        0 => {
            spec.magic = Magic::Atad;
            (
                spec.write().bytes,
                "the magic ATAD, which DDNet's reader accepts",
            )
        }
        1 => {
            spec.version = 3;
            (
                spec.write().bytes,
                "a version 3 datafile: blocks stored, not deflated",
            )
        }
        2 => {
            // Teeworlds' writer before 2010 left the sizes table out.
            let mut bytes = spec.write().bytes;
            let fix = 4 * spec.blocks.len() as i32;
            for at in [8, 12] {
                let v =
                    i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
                bytes[at..at + 4].copy_from_slice(&(v - fix).to_le_bytes());
            }
            (
                bytes,
                "size and swaplen without the uncompressed sizes, as Teeworlds' writer did \
                 until 2010 (size_fixed, swaplen_fixed): DDNet adds them back",
            )
        }
        3 => {
            let unknown: Vec<u8> = (0..=255u8)
                .filter(|&k| !known_tile(Some(Physics::Game), k))
                .collect();
            let k = *rng.pick(&unknown);
            let n = spec.blocks[0].len() / 4;
            let at = 4 * rng.below(n as u64) as usize;
            spec.blocks[0][at] = k;
            (
                spec.write().bytes,
                "a game tile of a kind DDNet's editor does not place (tile_index; lint \
                 `tile_unused`): the game ignores it",
            )
        }
        4 => {
            let stored = rng.int(1, 8) as usize;
            let junk = rng.bytes(stored);
            let w = spec.write_with(|blocks, sizes| {
                blocks.push(junk);
                sizes.push(0);
            });
            (
                w.bytes,
                "an unused block that declares 0 bytes, as old maps have (data_size_zero): \
                 never loaded",
            )
        }
        5 => {
            let layers = spec.items.len() - 2;
            let (w, h) = (rng.int(2, 8), rng.int(2, 8));
            spec.items[1] = (4, 0, group(layers as i32 + 1));
            let block = spec.blocks.len() as i32;
            spec.items
                .push((5, layers as u16, tiles_layer(w, h, 1, block, "Game")));
            spec.blocks.push(game_tiles(rng, (w * h) as usize));
            (
                spec.write().bytes,
                "two game layers (game_several): DDNet uses the last",
            )
        }
        _ => {
            let n = rng.int(1, 8) as usize;
            let tail = rng.bytes(n);
            let w = spec.write_with(|blocks, _| blocks[0].extend(tail));
            (
                w.bytes,
                "bytes after the game block's zlib stream (block_tail): DDNet's reader ignores \
                 them",
            )
        }
    };
    Made::valid(bytes, why)
}

/// One rule of DDNet's reader or loader broken, the rule named in the
/// reason, the fault where `check` reports it.
fn malformed(rng: &mut Rng, spec: &mut MapSpec) -> Made {
    let datafile = crate::report::Code::Datafile.as_str();
    match rng.below(8) {
        0 => {
            let w = spec.write();
            let mut bytes = w.bytes;
            let end = bytes.len() as u64;
            let n = rng.int(1, 16) as usize;
            bytes.extend(rng.bytes(n));
            let why = format!("{n} byte(s) after the data (trailing): DDNet's reader refuses it");
            Made::faulty(bytes, why, end, datafile)
        }
        1 | 2 => {
            // Odd: never the pre-2010 writer's size (a multiple of 4 less).
            let by = 2 * rng.int(0, 20) + 1;
            let by = if rng.one_in(2) { by } else { -by };
            let (at, rule) = if rng.one_in(2) {
                (8, "size")
            } else {
                (12, "swaplen")
            };
            let mut bytes = spec.write().bytes;
            let v = i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            bytes[at..at + 4].copy_from_slice(&v.wrapping_add(by).to_le_bytes());
            let why =
                format!("the header's {rule} off by {by} ({rule}): DDNet's reader refuses it");
            Made::faulty(bytes, why, at as u64, datafile)
        }
        3 => {
            let (w, h) = game_size(spec);
            spec.items[2] = (5, 0, tiles_layer(w, h, 0, 0, "Game"));
            Made::faulty(
                spec.write().bytes,
                "no game layer: the only one's flags are 0 (game_missing): DDNet's loader \
                 refuses it",
                0,
                crate::report::Code::GameLayer.as_str(),
            )
        }
        4 => {
            let (w, h) = game_size(spec);
            spec.items[2] = (5, 0, tiles_layer(w, h + rng.int(1, 4), 1, 0, "Game"));
            let written = spec.write();
            Made::faulty(
                written.bytes,
                "a game layer taller than its block's tiles (tiles_short): DDNet's loader \
                 refuses it",
                written.blocks[0],
                crate::report::Code::MapTiles.as_str(),
            )
        }
        5 => {
            let w = spec.write_with(|blocks, _| {
                let b = &mut blocks[0];
                let last = b.len() - 1;
                b[last] ^= 0xff;
            });
            Made::faulty(
                w.bytes,
                "the game block's zlib checksum broken (block, tiles_no_data): DDNet's loader \
                 refuses it",
                w.blocks[0],
                crate::report::Code::MapTiles.as_str(),
            )
        }
        6 => {
            let size = -rng.int(1, 1 << 20);
            let w = spec.write_with(|_, sizes| sizes[0] = size);
            Made::faulty(
                w.bytes,
                format!(
                    "the game block declares {size} bytes (data_size_negative): DDNet's reader \
                     refuses it"
                ),
                w.data_sizes,
                datafile,
            )
        }
        _ => {
            let version = *rng.pick(&[0, 2, 3, -1]);
            spec.items[0] = (0, 0, ints(&[version]));
            let w = spec.write();
            Made::faulty(
                w.bytes,
                format!("map version {version} (version): DDNet's loader loads only 1"),
                w.items[0] + ITEM_HEADER_LEN as u64,
                crate::report::Code::MapItem.as_str(),
            )
        }
    }
}

/// The game layer's width and height as [`valid`] made them.
fn game_size(spec: &MapSpec) -> (i32, i32) {
    let b = &spec.items[2].2;
    let int = |i: usize| i32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    (int(4), int(5))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::map::Datafile;

    #[test]
    fn a_valid_map_is_laid_out_as_the_corpus_writer_lays_it() {
        // corpus/make_map_corpus.py's minimal map, built here.
        let ground = [0u8, 192, 0, 1, 1, 1]
            .iter()
            .zip([0u8, 0, 0, 0, 8, 0])
            .flat_map(|(&i, f)| [i, f, 0, 0])
            .collect();
        let spec = MapSpec {
            items: vec![
                (0, 0, ints(&[1])),
                (4, 0, group(1)),
                (5, 0, tiles_layer(3, 2, 1, 0, "Game")),
            ],
            blocks: vec![ground],
            version: 4,
            magic: Magic::Data,
        };
        let corpus = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("corpus/map/synthetic/minimal.map"),
        )
        .unwrap();
        let ours = spec.write().bytes;
        let (ours, theirs) = (
            Datafile::decode(&ours).unwrap(),
            Datafile::decode(&corpus).unwrap(),
        );
        // Equal but for the zlib stream (flate2's, not zlib's) and the
        // sizes that follow from it.
        assert_eq!(ours.item_types, theirs.item_types);
        assert_eq!(ours.items, theirs.items);
        assert_eq!(ours.data_sizes, theirs.data_sizes);
        let block = |d: &Datafile| crate::map::data::block(d, 0, 1 << 20).unwrap().into_owned();
        assert_eq!(block(&ours), block(&theirs));
        assert!(crate::map::Datafile::faults(&ours).is_empty());
    }
}
