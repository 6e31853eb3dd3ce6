//! Map lint (`teeoracle map lint`): what DDNet 20.1 loads without a word
//! but cannot work, each rule named with the DDNet source that decides
//! it. [`super::rules`] is what the loader refuses or changes; this is
//! what it keeps and then ignores: a teleporter numbered 0, an entrance
//! with no exit, a switch opener numbered 0, a speedup with no force, a
//! tune tile of zone 0, a tile kind a layer does not use, a layer naming
//! an image, envelope or sound the map does not have, and items DDNet
//! cannot type. Findings are warnings or notes, never failures: DDNet
//! plays the map.

use super::Datafile;
use super::grid::grid;
use super::items::{Kind, Layer, LayerBody, MapItem, Physics, TilesLayer};
use super::quads::{Quad, Records, SoundSource};
use super::tiles::{
    TILE_TELECHECK, TILE_TELECHECKOUT, TILE_TELEIN, TILE_TELEINEVIL, TILE_TELEINHOOK,
    TILE_TELEINWEAPON, TILE_TELEOUT, Tiles, known_tile,
};
use super::{Map, data::block};
use crate::codec::{Codec, Mode, Reader};
use crate::report::Severity;
use serde::Serialize;
use std::collections::BTreeMap;

/// One rule: its name, how serious a breach is, the DDNet source that
/// decides it, and what DDNet does.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rule {
    /// A stable snake_case name.
    pub name: &'static str,
    /// Warn: it cannot work; note: it works only in a way the mapper may
    /// not mean.
    pub severity: Severity,
    /// Where DDNet 20.1 decides it.
    pub source: &'static str,
    /// What DDNet does with it.
    pub effect: &'static str,
}

const fn rule(
    name: &'static str,
    severity: Severity,
    source: &'static str,
    effect: &'static str,
) -> Rule {
    Rule {
        name,
        severity,
        source,
        effect,
    }
}

/// Every rule, in the order findings are listed.
pub const RULES: &[Rule] = &[
    rule(
        "tele_number_zero",
        Severity::Warn,
        "src/game/collision.cpp CCollision::Init; server/entities/character.cpp HandleTiles",
        "a teleporter or tele checkpoint numbered 0 is never registered and never fires",
    ),
    rule(
        "tele_no_exit",
        Severity::Warn,
        "server/entities/character.cpp HandleTiles, projectile.cpp, laser.cpp, gamecore.cpp \
         (TeleOuts(N - 1).empty())",
        "an entrance (player, evil, weapon or hook) numbered N with no exit N does nothing",
    ),
    rule(
        "tele_no_entrance",
        Severity::Note,
        "src/game/server/ddracechat.cpp ConPracticeToTeleporter, ddracecommands.cpp ConToTeleporter",
        "an exit numbered N with no entrance N is reached only by /tp (practice) or rcon's tele_to",
    ),
    rule(
        "switch_number_zero",
        Severity::Warn,
        "src/game/server/entities/character.cpp HandleTiles (SwitchNumber > 0)",
        "a switch opener or closer (timed or not) numbered 0 changes no switch",
    ),
    rule(
        "speedup_force_zero",
        Severity::Warn,
        "src/game/collision.cpp CCollision::IsSpeedup (m_Force > 0)",
        "a speedup with force 0 does nothing",
    ),
    rule(
        "tune_number_zero",
        Severity::Warn,
        "src/game/collision.cpp CCollision::IsTune; server/entities/character.cpp HandleTuneLayer",
        "a tune tile of zone 0 is the default tuning, as if no tile were there",
    ),
    rule(
        "tile_unused",
        Severity::Note,
        "src/game/mapitems.cpp IsValidGameTile and its kin; collision.cpp CCollision::Init",
        "a tile kind the layer does not use (DDNet's editor does not place it) is ignored",
    ),
    rule(
        "image_missing",
        Severity::Warn,
        "src/game/map/render_layer.cpp (m_Image < m_pMapImages->Num())",
        "a layer naming an image the map does not have is drawn without one",
    ),
    rule(
        "envelope_missing",
        Severity::Warn,
        "src/game/client/components/envelope_state.cpp CEnvelopeState::EnvelopeEval",
        "a layer, quad or sound source naming an envelope the map does not have is not animated",
    ),
    rule(
        "sound_missing",
        Severity::Warn,
        "src/game/client/components/mapsounds.cpp CMapSounds::OnMapLoad",
        "a sounds layer naming a sound the map does not have is silent",
    ),
    rule(
        "uuid_type_short",
        Severity::Warn,
        "src/engine/shared/datafile.cpp CDataFileReader::GetExternalItemType (sizeof(CItemEx)); \
         ddnet#7669",
        "an ITEMTYPE_EX item under 16 bytes names no type: the items of its type lose their \
         meaning (DDNet's 0.7 conversion stopped on such a map)",
    ),
    rule(
        "extension_unregistered",
        Severity::Warn,
        "src/engine/shared/datafile.cpp CDataFileReader::GetExternalItemType",
        "an item of an extension type (above 0x8000) no ITEMTYPE_EX item names is read as an \
         unknown type and ignored",
    ),
    rule(
        "item_type_unknown",
        Severity::Note,
        "src/game/mapitems.h (MAPITEMTYPE_*); src/game/layers.cpp",
        "an item of a type DDNet does not know (not 0 to 7, nor an extension) is ignored",
    ),
    rule(
        "extension_unknown",
        Severity::Note,
        "src/game/mapitems_ex_types.h",
        "an extension item whose UUID DDNet does not know is ignored",
    ),
];

/// The rule named `name`.
pub fn rule_named(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// A tile's place on its layer, in tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Tile {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
}

/// At most this many places are listed per finding (the count has all).
pub const MAX_PLACES: usize = 64;

/// One breach of a rule, or many of the same kind in one place (a layer,
/// a number).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lint {
    /// The rule ([`RULES`]).
    pub rule: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// The layer, as `map info` names it (`G.L`), if a layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// The item's index, if an item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
    /// How many tiles, quads, sources or items.
    pub count: u64,
    /// The first [`MAX_PLACES`] tiles, in rows from the top.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tiles: Vec<Tile>,
    /// One line for a person.
    pub message: String,
}

/// Every lint of `map` (the items of `datafile`), tile layers' blocks
/// inflated up to `cap` bytes each: rules in [`RULES`] order, then by
/// layer and number.
pub fn lint(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64) -> Vec<Lint> {
    let mut out = Vec::new();
    physics(datafile, map, cap, &mut out);
    references(datafile, map, cap, &mut out);
    items(datafile, map, &mut out);
    out.sort_by_key(|l| RULES.iter().position(|r| r.name == l.rule));
    out
}

/// Groups places under a key, keeping the first [`MAX_PLACES`] and a count.
#[derive(Default)]
struct Places<K: Ord>(BTreeMap<K, (u64, Vec<Tile>)>);

impl<K: Ord> Places<K> {
    fn add(&mut self, key: K, tile: Tile) {
        let (n, tiles) = self.0.entry(key).or_default();
        *n += 1;
        if tiles.len() < MAX_PLACES {
            tiles.push(tile);
        }
    }
}

/// A physics layer DDNet uses, its tiles and its name.
struct Used<'m, 'a> {
    name: String,
    layer: &'m TilesLayer<'a>,
    tiles: Tiles,
}

impl Used<'_, '_> {
    fn at(&self, i: usize) -> Tile {
        let w = self.layer.width.max(1) as usize;
        Tile {
            x: (i % w) as u32,
            y: (i / w) as u32,
        }
    }

    fn lint(&self, rule: &'static str, count: u64, tiles: Vec<Tile>, message: String) -> Lint {
        Lint {
            rule,
            severity: rule_named(rule).map_or(Severity::Warn, |r| r.severity),
            layer: Some(self.name.clone()),
            item: None,
            count,
            tiles,
            message,
        }
    }
}

/// The physics layers DDNet uses (the last of each kind in group order),
/// read; a layer whose tiles do not read is [`super::rules`]' finding.
fn used<'m, 'a>(
    datafile: &Datafile<'a>,
    map: &'m Map<'a>,
    cap: u64,
) -> Vec<(Physics, Used<'m, 'a>)> {
    let placements = map.placements();
    Physics::ALL
        .iter()
        .filter_map(|&p| {
            let at = placements.iter().rev().find(|at| {
                matches!(map.layer(at.item), Some(Layer { body: LayerBody::Tiles(t), .. })
                    if t.physics() == Some(p))
            })?;
            let Some(Layer {
                body: LayerBody::Tiles(layer),
                ..
            }) = map.layer(at.item)
            else {
                return None;
            };
            let tiles = grid(datafile, layer, cap).ok()?;
            let name = format!("{} ({})", at.name(), p.name());
            Some((p, Used { name, layer, tiles }))
        })
        .collect()
}

fn physics(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64, out: &mut Vec<Lint>) {
    for (p, layer) in used(datafile, map, cap) {
        unused_tiles(p, &layer, out);
        match &layer.tiles {
            Tiles::Tele(t) => tele(&layer, t, out),
            Tiles::Switch(t) => {
                let mut zero = Places::default();
                for (i, t) in t.iter().enumerate() {
                    // TILE_SWITCHTIMEDOPEN to TILE_SWITCHCLOSE (22 to 25).
                    if (22..=25).contains(&t.kind) && t.number == 0 {
                        zero.add(t.kind, layer.at(i));
                    }
                }
                for (kind, (n, tiles)) in zero.0 {
                    let what =
                        ["timed opener", "timed closer", "opener", "closer"][kind as usize - 22];
                    out.push(layer.lint(
                        "switch_number_zero",
                        n,
                        tiles,
                        format!(
                            "{n} switch {what}(s) (kind {kind}) numbered 0: they change no switch"
                        ),
                    ));
                }
            }
            Tiles::Speedup(t) => {
                let mut zero = Places::default();
                for (i, t) in t.iter().enumerate() {
                    // TILE_SPEED_BOOST_OLD and TILE_SPEED_BOOST.
                    if (t.kind == 28 || t.kind == 29) && t.force == 0 {
                        zero.add((), layer.at(i));
                    }
                }
                for ((), (n, tiles)) in zero.0 {
                    out.push(layer.lint(
                        "speedup_force_zero",
                        n,
                        tiles,
                        format!("{n} speedup(s) with force 0: they do nothing"),
                    ));
                }
            }
            Tiles::Tune(t) => {
                let mut zero = Places::default();
                for (i, t) in t.iter().enumerate() {
                    // TILE_TUNE.
                    if t.kind == 68 && t.number == 0 {
                        zero.add((), layer.at(i));
                    }
                }
                for ((), (n, tiles)) in zero.0 {
                    out.push(layer.lint(
                        "tune_number_zero",
                        n,
                        tiles,
                        format!("{n} tune tile(s) of zone 0: the default tuning, as no tile"),
                    ));
                }
            }
            Tiles::Tile(_) => {}
        }
    }
}

/// Tile kinds the layer does not use, by kind.
fn unused_tiles(p: Physics, layer: &Used<'_, '_>, out: &mut Vec<Lint>) {
    let mut unused = Places::default();
    for (i, k) in layer.tiles.kinds().into_iter().enumerate() {
        if !known_tile(Some(p), k) {
            unused.add(k, layer.at(i));
        }
    }
    for (kind, (n, tiles)) in unused.0 {
        out.push(layer.lint(
            "tile_unused",
            n,
            tiles,
            format!(
                "{n} tile(s) of kind {kind}, which a {} layer does not use: ignored",
                p.name()
            ),
        ));
    }
}

/// The tele kinds that go in through teleporter N: player, evil, weapon
/// and hook entrances.
pub const ENTRANCES: [u8; 4] = [
    TILE_TELEIN,
    TILE_TELEINEVIL,
    TILE_TELEINWEAPON,
    TILE_TELEINHOOK,
];

fn tele(layer: &Used<'_, '_>, tiles: &[super::tiles::TeleTile], out: &mut Vec<Lint>) {
    let numbered = [
        TILE_TELEIN,
        TILE_TELEINEVIL,
        TILE_TELEINWEAPON,
        TILE_TELEINHOOK,
        TILE_TELEOUT,
        TILE_TELECHECK,
        TILE_TELECHECKOUT,
    ];
    let (mut zero, mut entrances, mut exits) =
        (Places::default(), Places::default(), Places::default());
    for (i, t) in tiles.iter().enumerate() {
        if !numbered.contains(&t.kind) {
            continue;
        }
        if t.number == 0 {
            zero.add(t.kind, layer.at(i));
        } else if ENTRANCES.contains(&t.kind) {
            entrances.add(t.number, layer.at(i));
        } else if t.kind == TILE_TELEOUT {
            exits.add(t.number, layer.at(i));
        }
    }
    for (kind, (n, tiles)) in zero.0 {
        out.push(layer.lint(
            "tele_number_zero",
            n,
            tiles,
            format!("{n} tele tile(s) of kind {kind} numbered 0: never registered, never fire"),
        ));
    }
    for (number, (n, tiles)) in &entrances.0 {
        if !exits.0.contains_key(number) {
            out.push(layer.lint(
                "tele_no_exit",
                *n,
                tiles.clone(),
                format!("{n} entrance(s) numbered {number}, and no exit {number}: they do nothing"),
            ));
        }
    }
    for (number, (n, tiles)) in exits.0 {
        if !entrances.0.contains_key(&number) {
            out.push(layer.lint(
                "tele_no_entrance",
                n,
                tiles,
                format!(
                    "{n} exit(s) numbered {number}, and no entrance {number}: reached only by \
                     /tp in practice mode or rcon's tele_to"
                ),
            ));
        }
    }
}

/// Layers, quads and sound sources naming images, envelopes or sounds
/// the map does not have.
fn references(datafile: &Datafile<'_>, map: &Map<'_>, cap: u64, out: &mut Vec<Lint>) {
    let count = |kind: Kind| map.kinds.iter().filter(|&&k| k == kind).count() as i64;
    let (images, envelopes, sounds) = (
        count(Kind::Image),
        count(Kind::Envelope),
        count(Kind::Sound),
    );
    let missing = |i: i32, have: i64| i >= 0 && i64::from(i) >= have;
    for at in map.placements() {
        let Some(layer) = map.layer(at.item) else {
            continue;
        };
        let mut push = |rule: &'static str, count: u64, message: String| {
            out.push(Lint {
                rule,
                severity: rule_named(rule).map_or(Severity::Warn, |r| r.severity),
                layer: Some(at.name()),
                item: Some(at.item),
                count,
                tiles: Vec::new(),
                message,
            })
        };
        // The image and sound it names, and how many of its envelope
        // references (its own, its quads' or its sources') miss.
        let env = |e: i32| missing(e, envelopes);
        let (image, sound, bad, whose) = match &layer.body {
            LayerBody::Tiles(t) => (Some(t.image), None, usize::from(env(t.color_env)), ""),
            LayerBody::Quads(q) => {
                let quads: Vec<Quad> = records(datafile, q.data, cap);
                let bad = quads.iter().filter(|q| env(q.pos_env) || env(q.color_env));
                (Some(q.image), None, bad.count(), "quad(s)")
            }
            LayerBody::Sounds(s) => {
                let sources: Vec<SoundSource> = records(datafile, s.data, cap);
                let bad = sources
                    .iter()
                    .filter(|s| env(s.pos_env) || env(s.sound_env));
                (None, Some(s.sound), bad.count(), "sound source(s)")
            }
            LayerBody::Other { .. } => continue,
        };
        if let Some(i) = image.filter(|&i| missing(i, images)) {
            push(
                "image_missing",
                1,
                format!("names image {i}, the map has {images}"),
            );
        }
        if let Some(i) = sound.filter(|&i| missing(i, sounds)) {
            push(
                "sound_missing",
                1,
                format!("names sound {i}, the map has {sounds}"),
            );
        }
        if bad > 0 {
            let who = match whose {
                "" => "names".to_string(),
                whose => format!("has {bad} {whose} naming"),
            };
            push(
                "envelope_missing",
                bad as u64,
                format!("{who} an envelope the map does not have (it has {envelopes})"),
            );
        }
    }
}

/// A block's records (none if it does not read).
fn records<T: super::quads::Record>(datafile: &Datafile<'_>, index: i32, cap: u64) -> Vec<T> {
    let Some(bytes) = usize::try_from(index)
        .ok()
        .and_then(|i| block(datafile, i, cap).ok())
    else {
        return Vec::new();
    };
    Records::<T>::decode(&mut Reader::new(&bytes, Mode::Lenient), ())
        .map(|r| r.records)
        .unwrap_or_default()
}

/// Items DDNet cannot type.
fn items(datafile: &Datafile<'_>, map: &Map<'_>, out: &mut Vec<Lint>) {
    let types = datafile.items.iter().map(|i| i.type_id());
    for (i, ((kind, item), type_id)) in map.kinds.iter().zip(&map.items).zip(types).enumerate() {
        let (rule, message) = match (kind, item) {
            (Kind::UuidType, Err(_)) => (
                "uuid_type_short",
                "an ITEMTYPE_EX item shorter than the 16 bytes of a UUID".to_string(),
            ),
            (Kind::Extension(uuid), Ok(MapItem::Extension { .. })) => (
                "extension_unknown",
                format!("an extension item of UUID {uuid}, which DDNet does not know"),
            ),
            (Kind::Unknown, _) if type_id > super::items::OFFSET_UUID_TYPE => (
                "extension_unregistered",
                format!("an item of extension type {type_id:#x}, which no ITEMTYPE_EX item names"),
            ),
            (Kind::Unknown, _) => (
                "item_type_unknown",
                format!("an item of type {type_id}, which DDNet does not know"),
            ),
            _ => continue,
        };
        out.push(Lint {
            rule,
            severity: rule_named(rule).map_or(Severity::Warn, |r| r.severity),
            layer: None,
            item: Some(i),
            count: 1,
            tiles: Vec::new(),
            message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tests::ints;
    use crate::map::tests::zlib::{NONE, build, group, tiles_layer};

    fn lints(bytes: &[u8]) -> Vec<Lint> {
        let datafile = Datafile::decode(bytes).expect("a map");
        lint(&datafile, &Map::new(&datafile), 1 << 20)
    }

    /// A lint as (rule, layer, count, tiles as (x, y)).
    type Summary = (&'static str, String, u64, Vec<(u32, u32)>);

    fn summary(lints: &[Lint]) -> Vec<Summary> {
        lints
            .iter()
            .map(|l| {
                let tiles = l.tiles.iter().map(|t| (t.x, t.y)).collect();
                (l.rule, l.layer.clone().unwrap_or_default(), l.count, tiles)
            })
            .collect()
    }

    /// A 4 by 2 map: a game layer with one tile kind it does not use
    /// (8, at (3, 1)), and a tele, speedup, switch and tune layer, each
    /// with tiles that cannot work beside tiles that do.
    fn physics_map() -> Vec<u8> {
        let mut game = [0u8, 0, 0, 0].repeat(8);
        game[7 * 4] = 8;
        // (number, kind): 0 numbered 0; an entrance 1 with no exit; an
        // exit 2 with no entrance; entrance and exit 3; a check-in (its
        // number is not used).
        let tele: Vec<u8> = [
            (0, 26),
            (1, 26),
            (2, 27),
            (3, 26),
            (3, 27),
            (0, 31),
            (0, 0),
            (0, 0),
        ]
        .iter()
        .flat_map(|&(n, k)| [n, k])
        .collect();
        // force, max speed, kind, reserved, angle: force 0, then force 5.
        let speedup: Vec<u8> = [[0u8, 0, 28, 0, 0, 0], [5, 0, 28, 0, 90, 0]]
            .concat()
            .into_iter()
            .chain([0u8; 6 * 6])
            .collect();
        // number, kind, flags, delay: an opener numbered 0, one numbered 1,
        // a switch freeze numbered 0 (always on: fine).
        let switch: Vec<u8> = [[0u8, 24, 0, 0], [1, 24, 0, 0], [0, 9, 0, 3]]
            .concat()
            .into_iter()
            .chain([0u8; 4 * 5])
            .collect();
        let tune: Vec<u8> = [0u8, 68, 1, 68].into_iter().chain([0u8; 2 * 6]).collect();
        let items = [
            (0, 0, ints(&[1])),
            (4, 0, group(0, 5)),
            (5, 0, tiles_layer(4, 2, 1, 0, NONE)),
            (5, 1, tiles_layer(4, 2, 2, -1, [1, -1, -1, -1, -1])),
            (5, 2, tiles_layer(4, 2, 4, -1, [-1, 2, -1, -1, -1])),
            (5, 3, tiles_layer(4, 2, 16, -1, [-1, -1, -1, 3, -1])),
            (5, 4, tiles_layer(4, 2, 32, -1, [-1, -1, -1, -1, 4])),
        ];
        build(&items, &[game, tele, speedup, switch, tune])
    }

    #[test]
    fn each_tile_rule_names_the_tiles_that_cannot_work_and_no_others() {
        let found = lints(&physics_map());
        let layer = |s: &str| s.to_string();
        assert_eq!(
            summary(&found),
            [
                ("tele_number_zero", layer("0.1 (Tele)"), 1, vec![(0, 0)]),
                ("tele_no_exit", layer("0.1 (Tele)"), 1, vec![(1, 0)]),
                ("tele_no_entrance", layer("0.1 (Tele)"), 1, vec![(2, 0)]),
                ("switch_number_zero", layer("0.3 (Switch)"), 1, vec![(0, 0)]),
                (
                    "speedup_force_zero",
                    layer("0.2 (Speedup)"),
                    1,
                    vec![(0, 0)]
                ),
                ("tune_number_zero", layer("0.4 (Tune)"), 1, vec![(0, 0)]),
                ("tile_unused", layer("0.0 (Game)"), 1, vec![(3, 1)]),
            ]
        );
        let severities: Vec<Severity> = found.iter().map(|l| l.severity).collect();
        use Severity::{Note, Warn};
        assert_eq!(severities, [Warn, Warn, Note, Warn, Warn, Warn, Note]);
    }

    #[test]
    fn layers_naming_what_the_map_lacks_and_items_ddnet_cannot_type_are_named() {
        let game = [0u8, 0, 0, 0].repeat(4);
        // A drawn tiles layer naming image 2 and colour envelope 1 (the
        // map has neither).
        let mut drawn = tiles_layer(2, 2, 0, 1, NONE);
        drawn[11 * 4..12 * 4].copy_from_slice(&1i32.to_le_bytes());
        drawn[13 * 4..14 * 4].copy_from_slice(&2i32.to_le_bytes());
        let items = [
            (0, 0, ints(&[1])),
            (4, 0, group(0, 2)),
            (5, 0, tiles_layer(2, 2, 1, 0, NONE)),
            (5, 1, drawn),
            (9, 0, ints(&[7])),
            // An extension type registered by a short ITEMTYPE_EX item,
            // and one not registered at all.
            (0xfffc, 0, ints(&[1])),
            (0xfffd, 0, ints(&[1])),
            (0xffff, 0xfffc, ints(&[1, 0])),
        ];
        let found = lints(&build(&items, &[game, [0u8; 16].to_vec()]));
        let got: Vec<(&str, Option<usize>)> = found.iter().map(|l| (l.rule, l.item)).collect();
        assert_eq!(
            got,
            [
                ("image_missing", Some(3)),
                ("envelope_missing", Some(3)),
                ("uuid_type_short", Some(7)),
                ("extension_unregistered", Some(5)),
                ("extension_unregistered", Some(6)),
                ("item_type_unknown", Some(4)),
            ]
        );
    }

    #[test]
    fn docs_map_lint_lists_every_rule_with_its_severity() {
        let page = include_str!("../../docs/map-lint.md");
        for r in RULES {
            let severity = match r.severity {
                Severity::Note => "note",
                _ => "warn",
            };
            let row = format!("| `{}` | {severity} |", r.name);
            assert!(page.contains(&row), "docs/map-lint.md lacks {row}");
        }
    }

    #[test]
    fn every_rule_has_a_source_and_an_effect() {
        for r in RULES {
            assert!(
                r.source.contains("src/") || r.source.contains(".cpp"),
                "{}",
                r.name
            );
            assert!(!r.effect.is_empty(), "{}", r.name);
            assert!(
                matches!(r.severity, Severity::Warn | Severity::Note),
                "{}",
                r.name
            );
        }
    }
}
