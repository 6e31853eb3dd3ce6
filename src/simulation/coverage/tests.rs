use super::*;
use crate::map::tiles::{SwitchTile, Tile};
use Release::*;

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/physics-coverage.md");
const BEGIN: &str = "<!-- the table: src/simulation/coverage, printed by its markdown() -->\n";
const END: &str = "<!-- end of the table -->";

/// docs/physics-coverage.md shows this table, as [`markdown`] prints it
/// (`TEEORACLE_WRITE_COVERAGE=1` writes it there).
#[test]
fn the_doc_is_the_table() {
    let doc = std::fs::read_to_string(DOC).expect("docs/physics-coverage.md");
    let start = doc.find(BEGIN).expect("the table's first marker") + BEGIN.len();
    let end = doc.find(END).expect("the table's last marker");
    let table = markdown();
    if doc[start..end] != table && std::env::var_os("TEEORACLE_WRITE_COVERAGE").is_some() {
        let written = format!("{}{table}{}", &doc[..start], &doc[end..]);
        std::fs::write(DOC, written).expect("written");
        return;
    }
    assert!(
        doc[start..end] == table,
        "docs/physics-coverage.md is not the table (TEEORACLE_WRITE_COVERAGE=1 writes it)"
    );
}

#[test]
fn every_recording_named_is_in_the_corpus() {
    for f in features() {
        for p in f.proof {
            let root = env!("CARGO_MANIFEST_DIR");
            let path = match p.strip_prefix("campaign/") {
                Some(id) => format!("{root}/corpus/campaign/{id}/server.teehistorian.gz"),
                None => format!("{root}/corpus/teehistorian/{p}.teehistorian"),
            };
            assert!(std::path::Path::new(&path).is_file(), "{}: {p}", f.name);
        }
    }
}

#[test]
fn rows_do_not_overlap() {
    let rows = features();
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            let overlap = match (a.what, b.what) {
                (What::Tile { first, last }, What::Tile { first: f, last: l }) => {
                    first <= l && f <= last
                }
                (
                    What::Entity {
                        first,
                        last,
                        layers,
                    },
                    What::Entity {
                        first: f,
                        last: l,
                        layers: m,
                    },
                ) => {
                    first <= l
                        && f <= last
                        && (layers == m || [layers, m].contains(&EntityLayers::All))
                }
                (What::Tele(_) | What::Speedup(_) | What::Switch(..), _) => a.what == b.what,
                _ => false,
            };
            assert!(!overlap, "{} and {}", a.name, b.name);
        }
    }
}

/// A 40 by 20 map of air with `game` and `front` tiles at (x, y).
fn map(game: &[(i32, i32, u8)], front: &[(i32, i32, u8)]) -> Collision {
    let (w, h) = (40, 20);
    let layer = |tiles: &[(i32, i32, u8)]| {
        let mut l = vec![Tile::default(); (w * h) as usize];
        for &(x, y, index) in tiles {
            l[(y * w + x) as usize].index = index;
        }
        l
    };
    Collision::new(w, h, &layer(game))
        .expect("a grid")
        .with_front(layer(front))
}

fn at(x: i32, y: i32) -> Vec2 {
    Vec2::new(x as f32 * 32.0 + 16.0, y as f32 * 32.0 + 16.0)
}

#[test]
fn a_tile_the_model_lacks_or_does_not_know_is_met_under_the_box() {
    let col = map(&[(5, 5, 96), (10, 5, 8), (15, 5, 9)], &[(20, 5, 150)]);
    let w = Watch::new(Ddnet16_4, &col, 700, 700);
    assert_eq!(
        w.met(at(5, 5)),
        Some("TILE_TELE_GUN_ENABLE in the game layer")
    );
    // A corner of the box on it is enough; 15 units away is not.
    assert_eq!(
        w.met(at(5, 5) + Vec2::new(29.0, 0.0)),
        Some("TILE_TELE_GUN_ENABLE in the game layer")
    );
    assert_eq!(w.met(at(5, 5) + Vec2::new(31.0, 0.0)), None);
    assert_eq!(w.met(at(10, 5)), Some("unknown index 8 in the game layer"));
    assert_eq!(
        w.met(at(20, 5)),
        Some("unknown index 150 in the front layer")
    );
    // Freeze is modelled.
    assert_eq!(w.met(at(15, 5)), None);
}

#[test]
fn an_entity_reaches_as_far_as_it_acts() {
    // A light (12) in the front layer at (2, 2): it reaches as far as the
    // longest light and a character's half; a front layer spawn at
    // (30, 2) and a front layer heart at (30, 15), which the model takes.
    let col = map(
        &[],
        &[(2, 2, 191 + 12), (30, 2, 191 + 1), (30, 15, 191 + 7)],
    );
    let w = Watch::new(Ddnet20_1, &col, 100, 700);
    let light = Some("ENTITY_LASER_FAST_CCW in the front layer");
    assert_eq!(w.met(at(2, 2) + Vec2::new(300.0, 0.0)), light);
    assert_eq!(w.met(at(2, 2) + Vec2::new(400.0, 0.0)), None);
    assert_eq!(w.spawn(), None);
    assert_eq!(w.met(at(30, 15)), None);
    assert_eq!(w.met(at(30, 2)), None);
}

#[test]
fn switches_and_doors_are_modelled_an_unknown_switch_kind_not() {
    let (w, h) = (40, 20);
    // A door at (6, 6) with a short laser beside it, in the game layer.
    let col = map(&[(6, 6, 191 + 49), (7, 6, 191 + 19)], &[]);
    let mut switch = vec![SwitchTile::default(); (w * h) as usize];
    for (x, number, kind) in [(5, 1, 24), (10, 0, 24), (15, 2, 150)] {
        switch[5 * 40 + x] = SwitchTile {
            number,
            kind,
            flags: 0,
            delay: 0,
        };
    }
    let col = col.with_switch(switch);
    for release in [Ddnet16_4, Ddnet20_1] {
        let watch = Watch::new(release, &col, 700, 700);
        assert_eq!(watch.met(at(5, 5)), None);
        assert_eq!(watch.met(at(10, 5)), None);
        assert_eq!(watch.met(at(6, 6)), None);
        assert_eq!(
            watch.met(at(15, 5)),
            Some("unknown index 150 in the switch layer")
        );
    }
    let listed = map_features(&col);
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].feature.as_str(), listed[0].count, listed[0].first),
        ("unknown index 150 in the switch layer", 1, (15, 5))
    );
}

#[test]
fn a_map_lists_what_the_model_lacks_with_counts_and_the_first_tile() {
    let col = map(
        &[(5, 5, 96), (3, 7, 96), (1, 1, 9), (6, 6, 191 + 35)],
        &[(4, 4, 191 + 12)],
    );
    let got: Vec<(String, u64, (i32, i32))> = map_features(&col)
        .into_iter()
        .map(|m| (m.feature, m.count, m.first))
        .collect();
    assert_eq!(
        got,
        [
            (
                "ENTITY_LASER_FAST_CCW in the front layer".to_owned(),
                1,
                (4, 4)
            ),
            (
                "TILE_TELE_GUN_ENABLE in the game layer".to_owned(),
                2,
                (5, 5)
            ),
            (
                "ENTITY_ARMOR_SHOTGUN in the game layer".to_owned(),
                1,
                (6, 6)
            ),
        ]
    );
}

#[test]
fn a_header_setting_the_model_does_not_read_is_detected_at_the_start() {
    let config = vec![
        ("sv_deepfly".to_owned(), "0".to_owned()),
        ("sv_hit".to_owned(), "0".to_owned()),
        ("sv_gametype".to_owned(), "mod".to_owned()),
    ];
    assert_eq!(start_settings(Ddnet16_4, &config), ["sv_deepfly 0"]);
    assert_eq!(
        start_settings(Ddnet20_1, &config),
        ["sv_deepfly 0", "sv_gametype mod"]
    );
}
