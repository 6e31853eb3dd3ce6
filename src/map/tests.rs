//! Unit tests of the map module: hand-built datafiles (each header
//! field's error, each rule DDNet's reader checks), the typed items, and
//! a property over mutated real maps.

use super::items::{Kind, LayerBody, MapItem, PointForm, TilesLayer};
use super::*;
use crate::codec::{ErrorKind, encode_to_vec};
use crate::report::{Code, Severity};

/// Little-endian int32s.
pub(crate) fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// A version 4 datafile: types 0 (one item) and 3 (two), two blocks
/// (not zlib: the container does not look inside). Its parts lie at:
/// item types 36, item offsets 60, data offsets 72, data sizes 80, items
/// 88 (88, 100, 116), data 128 (128, 131), end 136.
fn sample() -> Vec<u8> {
    let payloads = [ints(&[1]), ints(&[7, 8]), ints(&[9])];
    let datafile = Datafile {
        magic: Magic::Data,
        version: 4,
        size: 120,
        swaplen: 112,
        item_types: vec![
            ItemType {
                type_id: 0,
                start: 0,
                num: 1,
            },
            ItemType {
                type_id: 3,
                start: 1,
                num: 2,
            },
        ],
        items: vec![
            Item {
                type_and_id: 0,
                size: 4,
                payload: &payloads[0],
            },
            Item {
                type_and_id: 3 << 16,
                size: 8,
                payload: &payloads[1],
            },
            Item {
                type_and_id: 3 << 16 | 1,
                size: 4,
                payload: &payloads[2],
            },
        ],
        data: vec![b"abc", b"defgh"],
        data_sizes: Some(vec![3, 5]),
        trailing: &[],
    };
    encode_to_vec(&datafile, ())
}

/// `bytes` with the int32 at `at` set to `v`.
fn patched(at: usize, v: i32) -> Vec<u8> {
    let mut b = sample();
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    b
}

/// The error decoding `bytes` gives: its offset, context and kind.
fn error(bytes: &[u8]) -> (u64, &'static str, ErrorKind) {
    match Datafile::decode(bytes) {
        Ok(d) => panic!("decoded where an error was expected: {d:?}"),
        Err(e) => (e.offset, e.context, e.kind.clone()),
    }
}

#[test]
fn the_sample_decodes_to_its_parts_and_encodes_back() {
    let bytes = sample();
    assert_eq!(bytes.len(), 136);
    let d = Datafile::decode(&bytes).expect("the sample decodes");
    let layout = d.layout();
    assert_eq!(
        (layout.items.clone(), layout.data.clone(), layout.end),
        (vec![88, 100, 116], vec![128, 131], 136)
    );
    assert_eq!(d.items[2].type_id(), 3);
    assert_eq!(d.items[2].id(), 1);
    assert_eq!(d.data[1], b"defgh");
    assert_eq!(
        encode_to_vec(&d, ()),
        bytes,
        "the sample re-encodes differently"
    );
    let faults = d.faults();
    assert!(faults.is_empty(), "a sound file has faults: {faults:?}");
}

#[test]
fn each_header_field_has_its_error() {
    let mut bad_magic = sample();
    bad_magic[..4].copy_from_slice(b"DATB");
    assert_eq!(error(&bad_magic), (0, "map.magic", ErrorKind::BadMagic));
    let unsupported = ErrorKind::UnsupportedVersion {
        found: Some(5),
        supported: "3 or 4",
    };
    assert_eq!(error(&patched(4, 5)), (4, "map.version", unsupported));
    // Counts: negative, or more than the file holds, which reading the
    // part they size finds (before anything is allocated for it).
    let eof = |needed, available| ErrorKind::UnexpectedEof { needed, available };
    let cases = [
        (
            16,
            -1,
            (
                16,
                "map.header.num_item_types",
                ErrorKind::NegativeLength { len: -1 },
            ),
        ),
        (
            28,
            -4,
            (
                28,
                "map.header.item_size",
                ErrorKind::NegativeLength { len: -4 },
            ),
        ),
        (16, 9, (36, "map.item_types", eof(108, 100))),
        (
            20,
            i32::MAX,
            (60, "map.item_offsets", eof(4 * i32::MAX as usize, 76)),
        ),
        (24, 100, (72, "map.data_offsets", eof(400, 64))),
        (32, 101, (128, "map.data", eof(101, 8))),
        (32, 9, (128, "map.data", eof(9, 8))),
    ];
    for (at, v, want) in cases {
        assert_eq!(error(&patched(at, v)), want, "field at {at} = {v}");
    }
    // Size and swaplen are kept, not checked, when decoding.
    for at in [8, 12] {
        let bytes = patched(at, 0);
        let d = Datafile::decode(&bytes).expect("a wrong size field still decodes");
        assert_eq!(
            encode_to_vec(&d, ()),
            bytes,
            "field at {at} re-encodes differently"
        );
    }
}

#[test]
fn a_cut_file_names_the_part_it_ends_in() {
    let bytes = sample();
    let cases = [
        (20, 0, "map.header"),
        (50, 36, "map.item_types"),
        (70, 60, "map.item_offsets"),
        (75, 72, "map.data_offsets"),
        (85, 80, "map.data_sizes"),
        (100, 88, "map.items"),
        (130, 128, "map.data"),
    ];
    for (len, at, context) in cases {
        let (offset, got, kind) = error(&bytes[..len]);
        assert_eq!((offset, got), (at, context), "cut at {len}");
        assert!(
            matches!(kind, ErrorKind::UnexpectedEof { .. }),
            "cut at {len}: {kind:?}"
        );
    }
}

#[test]
fn offsets_must_split_their_region() {
    let invalid = |found: i64, expected: &str| ErrorKind::InvalidValue {
        found,
        expected: expected.into(),
    };
    let cases = [
        (
            60,
            4,
            "map.item_offsets",
            invalid(4, "0 (the first item offset)"),
        ),
        (
            64,
            0,
            "map.item_offsets",
            invalid(0, "an offset past the one before (0)"),
        ),
        (
            68,
            40,
            "map.item_offsets",
            invalid(40, "an offset inside the items (40 bytes)"),
        ),
        (
            72,
            1,
            "map.data_offsets",
            invalid(1, "0 (the first data offset)"),
        ),
        (
            76,
            8,
            "map.data_offsets",
            invalid(8, "an offset inside the data blocks (8 bytes)"),
        ),
    ];
    for (at, v, context, kind) in cases {
        assert_eq!(
            error(&patched(at, v)),
            (at as u64, context, kind),
            "offset at {at} = {v}"
        );
    }
    // An item of fewer than 8 bytes has no room for its header.
    let short = invalid(4, "an item of at least 8 bytes (its type, id and size)");
    assert_eq!(error(&patched(68, 36)), (124, "map.item", short));
}

/// The findings' (code, severity, offset, count) of a file's container.
fn faults(bytes: &[u8]) -> Vec<(Code, Severity, Option<u64>, Option<u64>)> {
    let d = Datafile::decode(bytes).expect("it decodes");
    d.faults()
        .into_iter()
        .map(|f| (f.code, f.severity, f.offset, f.count))
        .collect()
}

#[test]
fn ddnet_reader_rules_are_findings() {
    let fail = |at| (Code::Datafile, Severity::Fail, Some(at), None);
    let note = |at| (Code::Datafile, Severity::Note, Some(at), None);
    assert_eq!(faults(&patched(8, 121)), [fail(8)], "size");
    assert_eq!(faults(&patched(12, 100)), [fail(12)], "swaplen");
    // Old DDNet writers left the 8 bytes of data sizes out; DDNet adds
    // them back.
    assert_eq!(
        faults(&patched(8, 112)),
        [note(8)],
        "size without data sizes"
    );
    assert_eq!(
        faults(&patched(12, 104)),
        [note(12)],
        "swaplen without data sizes"
    );
    let mut longer = sample();
    longer.push(0);
    assert_eq!(
        faults(&longer),
        [fail(136), fail(8)],
        "a byte after the data"
    );
    // The item types table against the items.
    assert_eq!(
        faults(&patched(36, 3)),
        [fail(48), fail(88)],
        "type 3 twice, item 0 under it"
    );
    assert_eq!(
        faults(&patched(52, 2)),
        [fail(52)],
        "type 3 starting at item 2"
    );
    assert_eq!(
        faults(&patched(56, 1)),
        [fail(36)],
        "type 3 with 1 item: 2 counted, 3 in the file"
    );
    assert_eq!(
        faults(&patched(56, 0)),
        [fail(56), fail(36)],
        "type 3 with no items"
    );
    // Items: a size field that is not the item's length, a repeated id.
    assert_eq!(faults(&patched(104, 4)), [fail(104)], "item 1's size field");
    assert_eq!(
        faults(&patched(116, 3 << 16)),
        [fail(116)],
        "item 2 repeats id 0"
    );
    // Uncompressed sizes.
    assert_eq!(faults(&patched(84, -5)), [fail(84)], "a negative size");
    assert_eq!(faults(&patched(84, 0)), [note(84)], "a block of no bytes");
}

#[test]
fn repeats_of_a_rule_are_counted_on_its_first_finding() {
    let mut bytes = sample();
    bytes[84..88].copy_from_slice(&(-1i32).to_le_bytes());
    bytes[80..84].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(
        faults(&bytes),
        [(Code::Datafile, Severity::Fail, Some(80), Some(2))]
    );
}

#[test]
fn version_3_has_no_data_sizes_and_atad_is_kept() {
    let mut b = sample();
    // Drop the sizes table: every part after it moves back 8 bytes.
    b.drain(80..88);
    b[4..8].copy_from_slice(&3i32.to_le_bytes());
    b[8..12].copy_from_slice(&112i32.to_le_bytes());
    b[12..16].copy_from_slice(&104i32.to_le_bytes());
    b[..4].copy_from_slice(b"ATAD");
    let d = Datafile::decode(&b).expect("version 3 decodes");
    assert_eq!(
        (d.magic, d.version, d.data_sizes.clone()),
        (Magic::Atad, 3, None)
    );
    assert_eq!(d.declared_size(1), Some(5));
    assert_eq!(encode_to_vec(&d, ()), b, "version 3 re-encodes differently");
    assert_eq!(d.faults(), [], "version 3 sample");
}

#[test]
fn is_map_wants_the_magic_and_a_version() {
    assert!(is_map(&sample()));
    assert!(!is_map(b"DATA"));
    assert!(!is_map(&patched(4, 5)));
    assert!(!is_map(b"TWDEMO\0\x06"));
}

/// A tiles layer item's payload: the layer's 3 ints, then `rest`.
fn tiles_payload(rest: &[i32]) -> Vec<u8> {
    ints(&[[0, 2, 0].as_slice(), rest].concat())
}

#[test]
fn tiles_layers_keep_the_fields_their_version_and_length_hold() {
    let base = [2, 50, 40, 0, 255, 255, 255, 255, -1, 0, -1, 3];
    // Version 2 with DDNet's first physics fields (tele, speedup): no
    // name; the third field of the name would have been there.
    let v2 = tiles_payload(&[base.as_slice(), &[5, 6]].concat());
    let mut r = Reader::new(&v2, Mode::Strict);
    let item = MapItem::decode(&mut r, Kind::Layer).expect("a version 2 tiles layer");
    let MapItem::Layer(layer) = &item else {
        panic!("not a layer: {item:?}")
    };
    let LayerBody::Tiles(t) = &layer.body else {
        panic!("not tiles: {layer:?}")
    };
    assert_eq!((t.version, t.width, t.height, t.data), (2, 50, 40, 3));
    assert_eq!((t.name, t.physics.clone()), (None, vec![5, 6]));
    assert_eq!(t.physics_data(items::Physics::Speedup), Some(6));
    assert_eq!(t.physics_data(items::Physics::Front), None);
    assert_eq!(
        encode_to_vec(&item, Kind::Layer),
        v2,
        "version 2 re-encodes differently"
    );
    // Version 3: name, then all five blocks, then 2 ints nobody knows.
    let mut v3 = base;
    v3[0] = 3;
    let v3 = tiles_payload(&[v3.as_slice(), &[1, 2, 3], &[-1; 5], &[77, 78]].concat());
    let item = MapItem::decode(&mut Reader::new(&v3, Mode::Strict), Kind::Layer).expect("v3");
    let MapItem::Layer(layer) = &item else {
        panic!("not a layer: {item:?}")
    };
    let LayerBody::Tiles(TilesLayer {
        name,
        physics,
        extra,
        ..
    }) = &layer.body
    else {
        panic!("not tiles: {layer:?}")
    };
    assert_eq!((*name, physics.len(), extra.len()), (Some([1, 2, 3]), 5, 8));
    assert_eq!(
        encode_to_vec(&item, Kind::Layer),
        v3,
        "version 3 re-encodes differently"
    );
    // Too short for a tiles layer: an error at the missing field.
    let short = tiles_payload(&base[..5]);
    let err = MapItem::decode(&mut Reader::at(&short, 1000, Mode::Strict), Kind::Layer)
        .expect_err("a truncated tiles layer");
    assert_eq!((err.offset, err.context), (1032, "map.layer.tiles"));
}

#[test]
fn envelope_points_take_their_form_from_the_envelopes() {
    let point = [100, 5, 1, 2, 3, 4];
    let tangents: Vec<i32> = (0..16).collect();
    let bezier = ints(&[point.as_slice(), &tangents, &point, &tangents, &[9]].concat());
    let form = Kind::EnvPoints(PointForm::Bezier);
    let item = MapItem::decode(&mut Reader::new(&bezier, Mode::Strict), form).expect("points");
    let MapItem::EnvPoints(points) = &item else {
        panic!("not points: {item:?}")
    };
    assert_eq!(points.points.len(), 2);
    assert_eq!(
        points.points[1].tangents.map(|t| t.out_dy),
        Some([12, 13, 14, 15])
    );
    assert_eq!(&points.extra[..], &9i32.to_le_bytes());
    assert_eq!(
        encode_to_vec(&item, form),
        bezier,
        "bezier points re-encode differently"
    );
    // The same bytes as basic points: 7 whole points and 3 ints over.
    let basic = Kind::EnvPoints(PointForm::Basic);
    let item = MapItem::decode(&mut Reader::new(&bezier, Mode::Strict), basic).expect("points");
    let MapItem::EnvPoints(points) = &item else {
        panic!("not points: {item:?}")
    };
    assert_eq!((points.points.len(), points.extra.len()), (7, 12));
    assert_eq!(
        encode_to_vec(&item, basic),
        bezier,
        "basic points re-encode differently"
    );
}

#[test]
fn extension_items_are_typed_by_the_uuid_their_ex_item_gives() {
    let uuid = crate::packer::calculate_uuid("mapitemtype-automapper-config@ddnet.tw");
    let uuid_ints: Vec<i32> = uuid
        .as_bytes()
        .chunks_exact(4)
        .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let payloads = [ints(&uuid_ints), ints(&[1, 0, 2, 3, 42, 1]), ints(&[5])];
    let items = vec![
        Item {
            type_and_id: 0xfffe << 16,
            size: 24,
            payload: &payloads[1],
        },
        Item {
            type_and_id: 0xfffd << 16,
            size: 4,
            payload: &payloads[2],
        },
        Item {
            type_and_id: 0xffff << 16 | 0xfffe,
            size: 16,
            payload: &payloads[0],
        },
    ];
    let datafile = Datafile {
        magic: Magic::Data,
        version: 4,
        size: 0,
        swaplen: 0,
        item_types: vec![],
        items,
        data: vec![],
        data_sizes: Some(vec![]),
        trailing: &[],
    };
    let map = Map::new(&datafile);
    assert_eq!(
        map.kinds,
        [Kind::Extension(uuid), Kind::Unknown, Kind::UuidType]
    );
    match &map.items[0] {
        Ok(MapItem::AutomapperConfig(c)) => assert_eq!((c.group, c.seed), (0, 42)),
        other => panic!("not an automapper config: {other:?}"),
    }
    match &map.items[2] {
        Ok(MapItem::UuidType(t)) => assert_eq!(t.uuid, uuid),
        other => panic!("not a UUID item: {other:?}"),
    }
    for (i, item) in datafile.items.iter().enumerate() {
        assert_eq!(
            map.encode_item(i).as_deref(),
            Some(item.payload),
            "item {i}"
        );
    }
}

#[test]
fn skip_runs_expand_as_ddnets_loader_expands_them() {
    use tiles::{SkipFault, Tile, expand};
    let t = |index, skip| Tile {
        index,
        skip,
        ..Tile::default()
    };
    let grid = expand(&[t(1, 2), t(0, 0), t(5, 1)], 6).expect("6 tiles");
    let indices: Vec<u8> = grid.iter().map(|t| t.index).collect();
    assert_eq!(indices, [1, 1, 1, 0, 5, 5]);
    assert!(grid.iter().all(|t| t.skip == 0), "skips are cleared");
    assert_eq!(expand(&[t(1, 2)], 6), Err(SkipFault::Short { got: 3 }));
    assert_eq!(
        expand(&[t(1, 5), t(2, 0)], 6),
        Err(SkipFault::Long { used: 1 })
    );
    let reserved = Tile {
        reserved: 1,
        ..t(1, 0)
    };
    assert_eq!(
        expand(&[t(1, 0), reserved], 2),
        Err(SkipFault::Reserved { at: 1 })
    );
}

#[test]
fn known_tiles_follow_ddnets_lists() {
    use items::Physics;
    use tiles::known_tile;
    let game = Some(Physics::Game);
    assert!(known_tile(game, 1), "solid");
    assert!(!known_tile(game, 8), "8 is no game tile");
    assert!(known_tile(game, 192), "a spawn (entity 1)");
    assert!(!known_tile(game, 191 + 28), "entity 28 is none");
    assert!(
        !known_tile(Some(Physics::Front), 1),
        "solid is no front tile"
    );
    assert!(known_tile(Some(Physics::Tele), 26) && !known_tile(Some(Physics::Tele), 1));
    assert!(
        known_tile(Some(Physics::Switch), 191 + 6),
        "armor in a switch layer"
    );
    assert!(
        !known_tile(Some(Physics::Switch), 192),
        "a spawn in a switch layer"
    );
    assert!(known_tile(None, 8), "a drawn layer takes any tile");
}

#[test]
fn quads_and_sources_keep_their_ints_and_the_bytes_after() {
    use quads::{Quad, Records, SoundSource};
    let quad: Vec<i32> = (0..38).collect();
    let bytes = ints(&[quad.as_slice(), &quad, &[7]].concat());
    let read: Records<Quad> = crate::codec::decode_exact(&bytes, Mode::Strict, ()).expect("quads");
    assert_eq!(read.records.len(), 2);
    assert_eq!(read.records[1].points[4], [8, 9]);
    assert_eq!(read.records[1].colors[3], [22, 23, 24, 25]);
    assert_eq!(read.records[1].color_env_offset, 37);
    assert_eq!(read.extra.len(), 4);
    assert_eq!(
        encode_to_vec(&read, ()),
        bytes,
        "quads re-encode differently"
    );
    let source: Vec<i32> = (100..113).collect();
    let bytes = ints(&source);
    let read: Records<SoundSource> =
        crate::codec::decode_exact(&bytes, Mode::Strict, ()).expect("sources");
    assert_eq!(read.records[0].shape, [110, 111, 112]);
    assert_eq!(
        encode_to_vec(&read, ()),
        bytes,
        "sources re-encode differently"
    );
}

#[test]
fn text_blocks_read_as_ddnet_reads_them() {
    use quads::{data_string, settings};
    assert_eq!(data_string(b"grass_main\0"), Some("grass_main"));
    assert_eq!(data_string(b"grass"), None, "no NUL at the end");
    assert_eq!(data_string(b"a\0b\0"), None, "a NUL inside");
    assert_eq!(data_string(b"\xff\0"), None, "not UTF-8");
    assert_eq!(data_string(b""), None, "no bytes");
    let commands: Vec<&[u8]> = vec![b"sv_gametype ctf", b"", b"sv_scorelimit 400"];
    assert_eq!(
        settings(b"sv_gametype ctf\0\0sv_scorelimit 400\0"),
        commands
    );
    assert_eq!(settings(b""), Vec::<&[u8]>::new());
}

#[cfg(feature = "zlib")]
pub(crate) mod zlib {
    use super::*;

    /// A map as DDNet's writer lays it out: items by type (each type's in
    /// the order given), blocks compressed at level 6, its sizes.
    pub(crate) fn build(items: &[(u16, u16, Vec<u8>)], blocks: &[Vec<u8>]) -> Vec<u8> {
        let spec = crate::map::write::MapSpec {
            items: items.to_vec(),
            blocks: blocks.to_vec(),
            version: 4,
            magic: Magic::Data,
        };
        spec.write().bytes
    }

    /// A tiles layer item: version 3, named as DDNet names its physics
    /// layer, white, DDNet's five physics blocks (`physics`: tele,
    /// speedup, front, switch, tune).
    pub(crate) fn tiles_layer(w: i32, h: i32, flags: i32, data: i32, physics: [i32; 5]) -> Vec<u8> {
        let name = match flags {
            1 => "Game",
            2 => "Tele",
            _ => "",
        };
        let name = crate::snapshot::items::str_to_ints(name.as_bytes(), 3);
        let head = [0, 2, 0, 3, w, h, flags, 255, 255, 255, 255, -1, 0, -1, data];
        ints(&[head.as_slice(), &name, &physics].concat())
    }

    pub(crate) fn group(start: i32, num: i32) -> Vec<u8> {
        ints(&[3, 0, 0, 100, 100, start, num, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    /// `n` tiles of index `index`.
    pub(crate) fn tiles(n: usize, index: u8) -> Vec<u8> {
        [index, 0, 0, 0].repeat(n)
    }

    /// The (code, severity) of what `check` finds in `bytes`.
    fn found(bytes: Vec<u8>) -> Vec<(Code, Severity)> {
        use crate::input::Source;
        use crate::report::{Format, Verdict};
        let mut verdict = Verdict::new("t.map");
        super::super::check::MapFormat.check(
            Source::bytes("t.map", bytes),
            &Default::default(),
            &mut verdict,
        );
        assert_eq!(verdict.error, None, "it decodes");
        verdict
            .findings
            .iter()
            .map(|f| (f.code, f.severity))
            .collect()
    }

    pub(crate) const NONE: [i32; 5] = [-1; 5];

    #[test]
    fn a_minimal_map_has_no_findings() {
        let items = [
            (0, 0, ints(&[1])),
            (4, 0, group(0, 1)),
            (5, 0, tiles_layer(2, 2, 1, 0, NONE)),
        ];
        assert_eq!(found(build(&items, &[tiles(4, 1)])), []);
    }

    #[test]
    fn loader_and_client_rules_are_findings() {
        let base = |layers: Vec<Vec<u8>>, extra: Vec<(u16, u16, Vec<u8>)>| {
            let mut items = vec![(0, 0, ints(&[1])), (4, 0, group(0, layers.len() as i32))];
            items.extend(
                layers
                    .into_iter()
                    .enumerate()
                    .map(|(i, l)| (5, i as u16, l)),
            );
            items.extend(extra);
            items
        };
        let game = tiles_layer(3, 2, 1, 0, NONE);
        let blocks = vec![tiles(6, 1), tiles(4, 0), tiles(6, 0), b"sun\0".to_vec()];
        // Two game layers: DDNet takes the last.
        let two = base(vec![game.clone(), tiles_layer(2, 2, 1, 1, NONE)], vec![]);
        assert_eq!(
            found(build(&two, &blocks)),
            [(Code::GameLayer, Severity::Warn)]
        );
        // A tele layer (its tiles in block 1) smaller than the game layer.
        let tele = tiles_layer(2, 2, 2, 2, [1, -1, -1, -1, -1]);
        let small = base(vec![game.clone(), tele], vec![]);
        assert_eq!(
            found(build(&small, &blocks)),
            [(Code::MapTiles, Severity::Fail)]
        );
        // A tele layer of the game layer's size whose tiles (number 5) are
        // of kind 1, no teleporter: a note.
        let blocks_tele = vec![tiles(6, 1), [5, 1].repeat(6), tiles(6, 0)];
        let tele = tiles_layer(3, 2, 2, 2, [1, -1, -1, -1, -1]);
        let odd = base(vec![game.clone(), tele], vec![]);
        assert_eq!(
            found(build(&odd, &blocks_tele)),
            [(Code::TileIndex, Severity::Note)]
        );
        // Images: external without a name; embedded with too few pixels.
        let external = ints(&[1, 64, 64, 1, -1, -1]);
        let embedded = ints(&[1, 4, 4, 0, 3, 2]);
        let images = base(vec![game.clone()], vec![(2, 0, external), (2, 1, embedded)]);
        let want = [(Code::MapItem, Severity::Warn); 2];
        assert_eq!(found(build(&images, &blocks)), want);
        // A bezier item with tangents for 2 points, the points item 1.
        let uuid = crate::packer::calculate_uuid("mapitemtype-envpoints-bezier@ddnet.tw");
        let uuid_ints: Vec<i32> = uuid
            .as_bytes()
            .chunks_exact(4)
            .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let bezier = vec![
            (6, 0, ints(&[0, 1, 0, 0, 0, 0])),
            (0xffff, 0xfffe, ints(&uuid_ints)),
            (0xfffe, 0, ints(&[0; 32])),
        ];
        let b = base(vec![game], bezier);
        assert_eq!(found(build(&b, &blocks)), [(Code::MapItem, Severity::Note)]);
    }

    /// The map a corpus demo embeds.
    pub(crate) fn real_map() -> &'static [u8] {
        static MAP: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        MAP.get_or_init(|| {
            let demo = crate::testing::corpus("demo/ddnet-20.1/A_join_move_leave.demo");
            let (demo, _) = crate::demo::Demo::decode(&demo).expect("the corpus demo");
            demo.map.to_vec()
        })
    }

    /// The real map with up to 8 bytes flipped (positions and values
    /// from the inputs), maybe cut.
    pub(crate) fn mutate(flips: &[(u32, u8)], cut: Option<u32>) -> Vec<u8> {
        let mut bytes = real_map().to_vec();
        for (at, v) in flips.iter().take(8) {
            let at = *at as usize % bytes.len();
            bytes[at] ^= v | 1;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut as usize % (bytes.len() + 1));
        }
        bytes
    }

    /// A real map with up to 8 bytes flipped, maybe cut: whatever decodes
    /// re-encodes to its bytes, each typed item to its payload, and
    /// nothing the check, `map info`, `map dump` or `map render` do
    /// panics.
    fn mutated_map(flips: Vec<(u32, u8)>, cut: Option<u32>) -> bool {
        use super::super::check::MapFormat;
        use super::super::{Datafile, Map};
        use crate::codec::encode_to_vec;
        use crate::input::Source;
        use crate::report::{Format, Verdict};
        let bytes = mutate(&flips, cut);
        let mut source = Source::bytes("mutated.map", bytes.clone());
        source.set_max_decompressed(Some(1 << 22));
        MapFormat.check(
            source,
            &Default::default(),
            &mut Verdict::new("mutated.map"),
        );
        let Ok(datafile) = Datafile::decode(&bytes) else {
            return true;
        };
        if encode_to_vec(&datafile, ()) != bytes {
            return false;
        }
        let typed = Map::new(&datafile);
        let cap = 1 << 22;
        let _ = super::super::info::Summary::new(&datafile, &typed, bytes.len() as u64, cap);
        let _ = super::super::info::Dump::new(&datafile, &typed, cap, &|_| true);
        #[cfg(feature = "render")]
        let _ = super::super::render::render(&datafile, &typed, cap, 1);
        (0..datafile.items.len()).all(|i| match typed.encode_item(i) {
            Some(b) => b == datafile.items[i].payload,
            None => true,
        })
    }

    #[test]
    fn prop_mutated_real_maps_never_panic() {
        assert!(real_map().len() > 1000, "the demo embeds its map");
        crate::testing::qc()
            .tests(300)
            .quickcheck(mutated_map as fn(Vec<(u32, u8)>, Option<u32>) -> bool);
    }
}
