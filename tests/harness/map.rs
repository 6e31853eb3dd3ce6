//! Every map we hold, through the map module: Debian's `ddnet-data` and
//! `teeworlds-data` maps (where installed: `.ci/run` installs them), the
//! corpus's maps, and every map embedded in a demo of the corpus and of
//! the shared corpus.
//! Each decodes and re-encodes byte for byte, each item typed gives its
//! payload back, every data block inflates to its declared size, and
//! each passes DDNet's reader and loader rules with exactly one game
//! layer whose tiles, like every tiles layer's, number width * height,
//! and each quads layer's block holds exactly its quads.

use crate::common::{self, Test};

use std::path::{Path, PathBuf};
use teeoracle::codec::{Mode, Reader, encode_to_vec, first_difference};
use teeoracle::compression::zlib::deflates_back;
use teeoracle::demo::Demo;
use teeoracle::map::check::read_blocks;
use teeoracle::map::data::block;
use teeoracle::map::items::{Layer, LayerBody, MapItem, Physics};
use teeoracle::map::quads::{Quad, Records};
use teeoracle::map::tiles::{TileData, TileKind, Tiles, expand};
use teeoracle::map::{Datafile, Map, rules};
use teeoracle::report::Severity;

pub const TESTS: &[Test] = tests![
    every_map_we_hold_round_trips_and_passes_ddnets_rules also DebianMaps also SharedCorpus,
    every_installed_map_lints_as_reviewed needs DebianMaps,
];

/// Every distinct map we hold, by a name saying where it is from:
/// installed maps, the corpus's, then the maps the demos embed.
fn maps() -> Vec<(String, Vec<u8>)> {
    let mut maps = Vec::new();
    // Debian's maps, where installed (`also DebianMaps`).
    for dir in common::DEBIAN_MAPS
        .map(Path::new)
        .iter()
        .filter(|d| d.is_dir())
    {
        for path in common::files_under(dir) {
            if path.extension().is_some_and(|e| e == "map") {
                let bytes = std::fs::read(&path).expect("an installed map");
                maps.push((path.display().to_string(), bytes));
            }
        }
    }
    // The corpus's own maps (the malformed ones fail on purpose).
    for path in common::files_under(&common::root().join("corpus/map")) {
        let malformed = path.components().any(|c| c.as_os_str() == "malformed");
        if !malformed && path.extension().is_some_and(|e| e == "map") {
            let bytes = std::fs::read(&path).expect("a corpus map");
            maps.push((path.display().to_string(), bytes));
        }
    }
    let mut demos: Vec<PathBuf> = common::files_under(&common::root().join("corpus"));
    // The shared corpus's, where it is (`also SharedCorpus`).
    if let Some(shared) = common::shared_corpus() {
        demos.extend(common::files_under(&shared));
    }
    for path in demos {
        let malformed = path.components().any(|c| c.as_os_str() == "malformed");
        if malformed || path.extension().is_none_or(|e| e != "demo") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("a corpus demo");
        let Ok((demo, _)) = Demo::decode_partial(&bytes) else {
            continue;
        };
        // Synthetic demos embed a few bytes that are no map.
        if !teeoracle::map::is_map(demo.map) {
            continue;
        }
        maps.push((format!("{} (embedded)", path.display()), demo.map.to_vec()));
    }
    // Each distinct map once (the corpus copies installed ones, demos
    // embed the same maps).
    let mut distinct: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, bytes) in maps {
        if !distinct.iter().any(|(_, b)| *b == bytes) {
            distinct.push((name, bytes));
        }
    }
    distinct
}

fn every_map_we_hold_round_trips_and_passes_ddnets_rules() {
    let maps = maps();
    assert!(maps.len() >= 5, "only {} maps found", maps.len());
    let (mut bytes_total, mut blocks_total, mut same_total, mut compressed_total) = (0, 0, 0, 0);
    for (name, bytes) in &maps {
        let datafile = Datafile::decode(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = encode_to_vec(&datafile, ());
        assert!(
            again == *bytes,
            "{name}: re-encoding differs at byte {:?}",
            first_difference(&again, bytes)
        );
        let typed = Map::new(&datafile);
        for (i, item) in datafile.items.iter().enumerate() {
            match typed.encode_item(i) {
                Some(payload) => assert!(
                    payload == item.payload,
                    "{name}: item {i} ({:?}) re-encodes differently at byte {:?}",
                    typed.kinds[i],
                    first_difference(&payload, item.payload)
                ),
                None => panic!("{name}: item {i} is not typed: {:?}", typed.items[i]),
            }
        }
        let block_findings = read_blocks(&datafile, 1 << 30);
        assert!(block_findings.is_empty(), "{name}: {block_findings:?}");
        let refused: Vec<_> = datafile
            .faults()
            .into_iter()
            .chain(rules::check(&datafile, &typed, 1 << 30))
            .filter(|f| f.severity >= Severity::Warn)
            .collect();
        assert!(refused.is_empty(), "{name}: {refused:?}");
        let games: Vec<_> = typed
            .tiles_layers()
            .filter(|(_, t)| t.physics() == Some(Physics::Game))
            .collect();
        assert_eq!(games.len(), 1, "{name}: game layers");
        for (i, layer) in typed.tiles_layers() {
            let index = layer.tiles_data().and_then(|d| usize::try_from(d).ok());
            let index = index.unwrap_or_else(|| panic!("{name}: layer item {i} has no block"));
            let block = block(&datafile, index, 1 << 30)
                .unwrap_or_else(|e| panic!("{name}: layer item {i}'s block {index}: {e}"));
            let kind = TileKind::of(layer.physics());
            let data =
                teeoracle::codec::Codec::decode(&mut Reader::new(&block, Mode::Lenient), kind);
            let data: TileData = data.unwrap_or_else(|e| panic!("{name}: {e}"));
            let cells = (layer.width * layer.height) as usize;
            let tiles = match (&data.tiles, layer.version) {
                (Tiles::Tile(stored), 4..) => expand(stored, cells).map(|t| t.len()),
                (tiles, _) => Ok(tiles.len()),
            };
            assert_eq!(
                tiles,
                Ok(cells),
                "{name}: tiles of layer item {i} ({}x{})",
                layer.width,
                layer.height
            );
            assert!(
                data.extra.is_empty(),
                "{name}: layer item {i}: bytes after its tiles"
            );
        }
        // Quads (and sound sources) are whole records, as many as their
        // layer says.
        for (i, item) in typed.items.iter().enumerate() {
            let Ok(MapItem::Layer(Layer {
                body: LayerBody::Quads(q),
                ..
            })) = item
            else {
                continue;
            };
            let Ok(index) = usize::try_from(q.data) else {
                assert_eq!(q.num_quads, 0, "{name}: quads layer item {i} has no block");
                continue;
            };
            let bytes = block(&datafile, index, 1 << 30)
                .unwrap_or_else(|e| panic!("{name}: quads of item {i}: {e}"));
            let quads: Records<Quad> = teeoracle::codec::decode_exact(&bytes, Mode::Strict, ())
                .unwrap_or_else(|e| panic!("{name}: quads of item {i}: {e}"));
            assert_eq!(
                quads.records.len(),
                q.num_quads as usize,
                "{name}: quads of item {i}"
            );
        }
        bytes_total += bytes.len();
        blocks_total += datafile.data.len();
        // Information only: blocks flate2's deflate, at the level DDNet's
        // writer uses (zlib's default, 6), gives back exactly. It is not
        // zlib's code and finds other matches on most blocks.
        if let Some(sizes) = &datafile.data_sizes {
            for (i, stored) in datafile.data.iter().enumerate() {
                let Ok(bytes) = block(&datafile, i, 1 << 30) else {
                    assert_eq!(sizes[i], 0, "{name}: block {i} inflates");
                    continue;
                };
                compressed_total += 1;
                same_total += usize::from(deflates_back(&bytes, stored, 6));
            }
        }
    }
    println!(
        "{} maps, {bytes_total} bytes, {blocks_total} data blocks: all byte-exact; \
         {same_total} of {compressed_total} compressed blocks deflate back to their bytes \
         at level 6 (flate2)",
        maps.len()
    );
}

/// `map lint` of every map Debian's `ddnet-data` and `teeworlds-data`
/// install, and the corpus's own: `snapshots/map/lint_installed.snap`,
/// reviewed (docs/map-lint.md says why each lint there is right).
fn every_installed_map_lints_as_reviewed() {
    let mut paths: Vec<PathBuf> = common::DEBIAN_MAPS
        .iter()
        .flat_map(|d| common::files_under(Path::new(d)))
        .chain(common::files_under(&common::root().join("corpus/map")))
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .filter(|p| !p.components().any(|c| c.as_os_str() == "malformed"))
        .collect();
    // Sorted by the name printed, not the path: the checkout may sit anywhere
    // (CI's is under /check), and must not move the corpus's maps in the list.
    let name = |p: &PathBuf| p.strip_prefix(common::root()).unwrap_or(p).to_path_buf();
    paths.sort_by_key(name);
    let mut text = String::new();
    for path in paths {
        let bytes = std::fs::read(&path).expect("a map");
        let datafile = Datafile::decode(&bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let lints = teeoracle::map::lint::lint(&datafile, &Map::new(&datafile), 1 << 30);
        let name = name(&path);
        text += &format!("{}: {} lint(s)\n", name.display(), lints.len());
        for l in lints {
            let tiles: Vec<String> = l
                .tiles
                .iter()
                .map(|t| format!("({}, {})", t.x, t.y))
                .collect();
            text += &format!(
                "  {} {:?} {} x{} {}: {}\n",
                l.rule,
                l.severity,
                l.layer.unwrap_or_default(),
                l.count,
                tiles.join(" "),
                l.message
            );
        }
    }
    common::snapshot("map", "lint_installed", &text);
}
