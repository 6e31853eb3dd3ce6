//! Lint faults put into a map: one rule of [`crate::map::lint::RULES`]
//! tripped in a map DDNet still loads, for `gen map`'s edge cases and
//! for `mutate`'s mutants of real maps alike.
//!
//! [`trip`] changes a [`MapSpec`] (items and inflated blocks) so that the
//! rule it is given fires and no other changes: a teleporter numbered 0
//! placed on an empty tele tile, the exits of a teleporter pair removed,
//! a speedup's force set to 0, a layer pointed at an image the map does
//! not have, an item of a type DDNet does not know added. A layer the
//! rule needs and the map lacks (a tele layer as large as the game
//! layer, a sounds layer) is added first, in a group of its own.

use super::map::{MapSpec, any_valid, tiles_layer};
use super::{Made, Rng};
use crate::map::items::{LAYER_SOUNDS, OFFSET_UUID_TYPE, Physics};
use crate::map::lint::ENTRANCES;
use crate::map::tiles::{
    TILE_FREEZE, TILE_TELECHECK, TILE_TELECHECKIN, TILE_TELECHECKOUT, TILE_TELEOUT, known_tile,
};
use crate::map::{Datafile, Map, items::LayerBody};
use crate::snapshot::items::str_to_ints;
use std::collections::BTreeSet;

/// `TILE_SWITCHTIMEDOPEN` to `TILE_SWITCHCLOSE`.
const SWITCH_OPENERS: std::ops::RangeInclusive<u8> = 22..=25;
/// `TILE_SPEED_BOOST_OLD`, `TILE_SPEED_BOOST`.
const SPEEDUPS: [u8; 2] = [28, 29];
/// `TILE_TUNE`.
const TILE_TUNE: u8 = 68;

fn set_int(payload: &mut [u8], n: usize, v: i32) {
    if let Some(b) = payload.get_mut(4 * n..4 * n + 4) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// `lo` to `hi` random ints, as an item's payload.
fn some_ints(rng: &mut Rng, lo: i32, hi: i32) -> Vec<u8> {
    let n = rng.int(lo, hi) as usize;
    rng.bytes(4 * n)
}

fn ints(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A map's items and inflated blocks, to change and write again (`None`
/// when a block does not inflate within `cap`).
pub fn spec_of(bytes: &[u8], cap: u64) -> Option<MapSpec> {
    let datafile = Datafile::decode(bytes).ok()?;
    let blocks = (0..datafile.data.len())
        .map(|i| crate::map::data::block(&datafile, i, cap).map(|b| b.into_owned()))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let mut items: Vec<(u16, u16, Vec<u8>)> = datafile
        .items
        .iter()
        .map(|i| (i.type_id(), i.id(), i.payload.to_vec()))
        .collect();
    // As the writer orders them, so that an item's index here is its
    // index in the file written.
    items.sort_by_key(|(t, _, _)| *t);
    Some(MapSpec {
        items,
        blocks,
        version: datafile.version,
        magic: datafile.magic,
    })
}

/// What [`trip`] reads of a map before changing it.
struct Seen {
    /// The physics layers DDNet uses, and their blocks.
    physics: Vec<(Physics, usize)>,
    /// The game layer's width and height.
    game: (i32, i32),
    /// Placed tiles layers' items, drawn ones first.
    tiles: Vec<usize>,
    /// Placed sounds layers' items.
    sounds: Vec<usize>,
    /// How many groups, layers, images, envelopes and sounds.
    groups: usize,
    layers: usize,
    images: i32,
    envelopes: i32,
    sound_count: i32,
    /// Item types in use, and extension types registered.
    types: BTreeSet<u16>,
}

fn seen(spec: &MapSpec) -> Option<Seen> {
    let bytes = spec.write().bytes;
    let datafile = Datafile::decode(&bytes).ok()?;
    let map = Map::new(&datafile);
    let physics = Physics::ALL
        .iter()
        .filter_map(|&p| {
            let (_, t) = map.physics_layer(p)?;
            let block = usize::try_from(t.tiles_data()?).ok()?;
            Some((p, block))
        })
        .collect();
    let (_, game) = map.physics_layer(Physics::Game)?;
    let (mut drawn, mut tiles, mut sounds) = (vec![], vec![], vec![]);
    for at in map.placements() {
        match map.layer(at.item).map(|l| &l.body) {
            Some(LayerBody::Tiles(t)) if t.physics().is_none() => drawn.push(at.item),
            Some(LayerBody::Tiles(_)) => tiles.push(at.item),
            Some(LayerBody::Sounds(_)) => sounds.push(at.item),
            _ => {}
        }
    }
    drawn.extend(tiles);
    let count = |t: u16| datafile.items_of(t).count();
    let mut types: BTreeSet<u16> = datafile.items.iter().map(|i| i.type_id()).collect();
    types.extend(datafile.items_of(0xffff).map(|i| i.id()));
    Some(Seen {
        physics,
        game: (game.width, game.height),
        tiles: drawn,
        sounds,
        groups: count(4),
        layers: count(5),
        images: count(2) as i32,
        envelopes: count(3) as i32,
        sound_count: count(7) as i32,
        types,
    })
}

/// A group of its own holding one new layer (`payload`, its block
/// appended when given).
fn add_layer(spec: &mut MapSpec, seen: &Seen, payload: Vec<u8>, block: Option<Vec<u8>>) {
    let mut group = vec![3, 0, 0, 100, 100, seen.layers as i32, 1, 0, 0, 0, 0, 0];
    group.extend(str_to_ints(b"Lint", 3));
    spec.items.push((4, seen.groups as u16, ints(&group)));
    spec.items.push((5, seen.layers as u16, payload));
    if let Some(b) = block {
        spec.blocks.push(b);
    }
    spec.items.sort_by_key(|(t, _, _)| *t);
}

/// A tile of a physics layer: its size, and where its kind and its
/// number (a speedup's force; a game tile has none, its flags stand in)
/// are.
fn layout(p: Physics) -> (usize, usize, usize) {
    match p {
        Physics::Tele | Physics::Tune => (2, 1, 0),
        Physics::Speedup => (6, 2, 0),
        Physics::Switch => (4, 1, 0),
        Physics::Game | Physics::Front => (4, 0, 1),
    }
}

/// The block of the physics layer `p` DDNet uses, adding the layer (as
/// large as the game layer, empty) when the map has none.
fn physics_block(spec: &mut MapSpec, p: Physics) -> Option<usize> {
    let seen = seen(spec)?;
    if let Some(&(_, b)) = seen.physics.iter().find(|(q, _)| *q == p) {
        return Some(b);
    }
    let (w, h) = seen.game;
    let block = spec.blocks.len();
    let mut layer = tiles_layer(w, h, p.flag(), -1, p.name());
    let slot = Physics::ALL.iter().position(|&q| q == p)? - 1;
    set_int(&mut layer, 18 + slot, block as i32);
    let (size, _, _) = layout(p);
    add_layer(spec, &seen, layer, Some(vec![0; size * (w * h) as usize]));
    Some(block)
}

/// The tiles of block `b` of a physics layer `p`, as (kind, number).
fn tiles_of(spec: &MapSpec, p: Physics, b: usize) -> Vec<(u8, u8)> {
    let (size, kind, number) = layout(p);
    spec.blocks[b]
        .chunks_exact(size)
        .map(|t| (t[kind], t[number]))
        .collect()
}

/// Sets tile `i` of block `b` (a layer `p`) to `kind` numbered `number`.
fn put(spec: &mut MapSpec, p: Physics, b: usize, i: usize, kind: u8, number: u8) {
    let (size, k, n) = layout(p);
    let t = &mut spec.blocks[b][i * size..(i + 1) * size];
    t.fill(0);
    t[k] = kind;
    t[n] = number;
}

/// A speedup's angle, as a mapper's speedup has one (other kinds have
/// none).
fn angle(spec: &mut MapSpec, rng: &mut Rng, p: Physics, b: usize, i: usize) {
    if p == Physics::Speedup {
        let angle = rng.int(0, 359) as i16;
        spec.blocks[b][i * 6 + 4..i * 6 + 6].copy_from_slice(&angle.to_le_bytes());
    }
}

/// An empty tile of block `b` (a layer `p`), if any.
fn empty(rng: &mut Rng, spec: &MapSpec, p: Physics, b: usize) -> Option<usize> {
    let free: Vec<usize> = tiles_of(spec, p, b)
        .iter()
        .enumerate()
        .filter(|(_, (k, _))| *k == 0)
        .map(|(i, _)| i)
        .collect();
    (!free.is_empty()).then(|| *rng.pick(&free))
}

/// Trips `rule` in `spec`: what was done, in words, or `None` when the
/// map gives no way to (no game layer, every tile taken).
pub fn trip(spec: &mut MapSpec, rng: &mut Rng, rule: &str) -> Option<String> {
    match rule {
        "tele_number_zero" => {
            let b = physics_block(spec, Physics::Tele)?;
            let numbered = [
                ENTRANCES.as_slice(),
                &[TILE_TELEOUT, TILE_TELECHECK, TILE_TELECHECKOUT],
            ];
            let kind = *rng.pick(&numbered.concat());
            let i = empty(rng, spec, Physics::Tele, b)?;
            put(spec, Physics::Tele, b, i, kind, 0);
            Some(format!("a tele tile of kind {kind} numbered 0"))
        }
        "tele_no_exit" | "tele_no_entrance" => {
            let b = physics_block(spec, Physics::Tele)?;
            let t = tiles_of(spec, Physics::Tele, b);
            let numbers = |kinds: &[u8]| -> BTreeSet<u8> {
                t.iter()
                    .filter(|(k, n)| kinds.contains(k) && *n != 0)
                    .map(|&(_, n)| n)
                    .collect()
            };
            let (ins, outs) = (numbers(&ENTRANCES), numbers(&[TILE_TELEOUT]));
            let (remove, what): (&[u8], &str) = match rule {
                "tele_no_exit" => (&[TILE_TELEOUT], "exit"),
                _ => (&ENTRANCES, "entrance"),
            };
            let pairs: Vec<u8> = ins.intersection(&outs).copied().collect();
            if !pairs.is_empty() {
                // A teleporter pair loses one side.
                let n = *rng.pick(&pairs);
                for (i, &(k, m)) in t.iter().enumerate() {
                    if m == n && remove.contains(&k) {
                        put(spec, Physics::Tele, b, i, 0, 0);
                    }
                }
                return Some(format!("the {what}(s) of teleporter {n} removed"));
            }
            let free: Vec<u8> = (1..=255u8)
                .filter(|n| !ins.contains(n) && !outs.contains(n))
                .collect();
            if free.is_empty() {
                return None;
            }
            let n = *rng.pick(&free);
            let (kind, side) = match rule {
                "tele_no_exit" => (*rng.pick(&ENTRANCES), "an entrance"),
                _ => (TILE_TELEOUT, "an exit"),
            };
            let i = empty(rng, spec, Physics::Tele, b)?;
            put(spec, Physics::Tele, b, i, kind, n);
            let other = if rule == "tele_no_exit" {
                "exit"
            } else {
                "entrance"
            };
            Some(format!("{side} numbered {n}, with no {other} {n}"))
        }
        "switch_number_zero" | "speedup_force_zero" | "tune_number_zero" => {
            let (p, kinds): (Physics, Vec<u8>) = match rule {
                "switch_number_zero" => (Physics::Switch, SWITCH_OPENERS.collect()),
                "speedup_force_zero" => (Physics::Speedup, SPEEDUPS.to_vec()),
                _ => (Physics::Tune, vec![TILE_TUNE]),
            };
            let b = physics_block(spec, p)?;
            let (size, _, number) = layout(p);
            let working: Vec<usize> = tiles_of(spec, p, b)
                .iter()
                .enumerate()
                .filter(|(_, (k, n))| kinds.contains(k) && *n != 0)
                .map(|(i, _)| i)
                .collect();
            let what = match p {
                Physics::Speedup => "force",
                Physics::Tune => "zone",
                _ => "number",
            };
            if !working.is_empty() {
                let i = *rng.pick(&working);
                spec.blocks[b][i * size + number] = 0;
                return Some(format!("a {} tile's {what} set to 0", p.name()));
            }
            let kind = *rng.pick(&kinds);
            let i = empty(rng, spec, p, b)?;
            put(spec, p, b, i, kind, 0);
            angle(spec, rng, p, b, i);
            Some(format!("a {} tile of kind {kind} with {what} 0", p.name()))
        }
        "tile_unused" => {
            let b = physics_block(spec, Physics::Game)?;
            let unused: Vec<u8> = (1..=255u8)
                .filter(|&k| !known_tile(Some(Physics::Game), k))
                .collect();
            let kind = *rng.pick(&unused);
            let i = empty(rng, spec, Physics::Game, b)?;
            spec.blocks[b][4 * i] = kind;
            Some(format!(
                "a game tile of kind {kind}, which a game layer does not use"
            ))
        }
        "image_missing" | "envelope_missing" | "sound_missing" => {
            let seen = seen(spec)?;
            // The layers that name one, the int of their item that does,
            // and how many the map has. Every map has a tiles layer: the
            // game layer.
            let (layers, field, have, what) = match rule {
                "image_missing" => (&seen.tiles, 13, seen.images, "image"),
                "envelope_missing" => (&seen.tiles, 11, seen.envelopes, "envelope"),
                _ => (&seen.sounds, 6, seen.sound_count, "sound"),
            };
            let missing = have + rng.int(0, 3);
            match layers.first() {
                Some(&item) => {
                    set_int(&mut spec.items[item].2, field, missing);
                    Some(format!(
                        "a layer naming {what} {missing}, the map has {have}"
                    ))
                }
                None if rule == "sound_missing" => {
                    let mut layer = ints(&[0, LAYER_SOUNDS, 0, 2, 0, -1, missing]);
                    layer.extend(ints(&str_to_ints(b"Sounds", 3)));
                    add_layer(spec, &seen, layer, None);
                    Some(format!(
                        "a sounds layer naming sound {missing}, the map has {have}"
                    ))
                }
                None => None,
            }
        }
        "uuid_type_short" | "extension_unregistered" | "extension_unknown" => {
            let seen = seen(spec)?;
            // The writer numbers extension types down from 0xfffe.
            let t = (OFFSET_UUID_TYPE + 1..0xffff)
                .rev()
                .find(|t| !seen.types.contains(t))?;
            let payload = some_ints(rng, 1, 4);
            match rule {
                "uuid_type_short" => {
                    let short = some_ints(rng, 0, 3);
                    spec.items.push((0xffff, t, short));
                    Some(format!(
                        "an ITEMTYPE_EX item for type {t:#x} under 16 bytes"
                    ))
                }
                "extension_unregistered" => {
                    spec.items.push((t, 0, payload));
                    Some(format!(
                        "an item of extension type {t:#x}, which no ITEMTYPE_EX item names"
                    ))
                }
                _ => {
                    spec.items.push((0xffff, t, rng.bytes(16)));
                    spec.items.push((t, 0, payload));
                    Some(format!(
                        "an item of extension type {t:#x} with a UUID DDNet does not know"
                    ))
                }
            }
            .inspect(|_| spec.items.sort_by_key(|(t, _, _)| *t))
        }
        "item_type_unknown" => {
            let seen = seen(spec)?;
            let t = rng.int(8, i32::from(OFFSET_UUID_TYPE) - 1) as u16;
            let t = (t..OFFSET_UUID_TYPE)
                .chain(8..t)
                .find(|t| !seen.types.contains(t))?;
            let payload = some_ints(rng, 1, 4);
            spec.items.push((t, 0, payload));
            spec.items.sort_by_key(|(t, _, _)| *t);
            Some(format!("an item of type {t}, which DDNet does not know"))
        }
        _ => None,
    }
}

/// A map that trips lint `rule` beside tiles that work, as `gen map`'s
/// edge variants do ([`super::map::lint_rule`]): DDNet loads it.
pub(crate) fn generate(rng: &mut Rng, rule: &str) -> Made {
    let (mut spec, _, _) = any_valid(rng);
    let what = working_tiles(&mut spec, rng, rule).and_then(|()| trip(&mut spec, rng, rule));
    match what {
        Some(what) => Made::valid(
            spec.write().bytes,
            format!("{what} (lint `{rule}`): DDNet loads it"),
        ),
        // Not reached: a valid map has a game layer, and room for the
        // layer a rule needs (the tests hold every rule to its case).
        None => Made::valid(spec.write().bytes, format!("no room for lint `{rule}`")),
    }
}

/// Tiles that work, beside the fault [`trip`] puts in for `rule`:
/// teleporter pairs and a check-in (its number unused), a speedup with a
/// force, a numbered switch opener and a switched freeze numbered 0
/// (always on, which is fine), a tune zone. Each only where a tile is
/// left for the fault.
pub fn working_tiles(spec: &mut MapSpec, rng: &mut Rng, rule: &str) -> Option<()> {
    let p = match rule {
        "tele_number_zero" | "tele_no_exit" | "tele_no_entrance" => Physics::Tele,
        "switch_number_zero" => Physics::Switch,
        "speedup_force_zero" => Physics::Speedup,
        "tune_number_zero" => Physics::Tune,
        _ => return Some(()),
    };
    let b = physics_block(spec, p)?;
    let n = rng.int(1, 254) as u8;
    let tiles: Vec<(u8, u8)> = match p {
        Physics::Tele => vec![
            (*rng.pick(&ENTRANCES), n),
            (TILE_TELEOUT, n),
            (*rng.pick(&ENTRANCES), n + 1),
            (TILE_TELEOUT, n + 1),
            (TILE_TELECHECKIN, 0),
        ],
        Physics::Switch => vec![(24, n), (TILE_FREEZE, 0)],
        Physics::Speedup => vec![(*rng.pick(&SPEEDUPS), n)],
        _ => vec![(TILE_TUNE, n)],
    };
    for (kind, number) in tiles {
        let free = tiles_of(spec, p, b).iter().filter(|(k, _)| *k == 0).count();
        if free < 2 {
            break;
        }
        let i = empty(rng, spec, p, b)?;
        put(spec, p, b, i, kind, number);
        angle(spec, rng, p, b, i);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Class, Kind, Mutation, Unit, cases, judge, map::EDGE_VARIANTS, mutate};
    use crate::map::lint::{Lint, RULES};

    const SEED: u64 = 12;

    fn lints(bytes: &[u8]) -> Vec<Lint> {
        crate::conform::map_lints(bytes).expect("a map DDNet loads")
    }

    fn rules(lints: &[Lint]) -> BTreeSet<&'static str> {
        lints.iter().map(|l| l.rule).collect()
    }

    #[test]
    fn every_rule_is_tripped_by_one_edge_case_and_each_lint_case_trips_only_its_rule() {
        let edge = cases(Unit::Map, SEED, EDGE_VARIANTS as usize, Kind::Edge);
        let mut tripped = BTreeSet::new();
        for c in &edge {
            assert_ne!(c.class, Class::MustReject, "{}: {}", c.name, c.reason);
            let found = c.expected_lints.clone().expect("a map DDNet loads");
            assert_eq!(found, lints(&c.bytes), "{}", c.name);
            // A lint case names its rule in its reason, and trips it alone.
            let named = RULES
                .iter()
                .find(|r| c.reason.contains(&format!("`{}`", r.name)));
            match named {
                Some(r) => assert_eq!(rules(&found), BTreeSet::from([r.name]), "{}", c.reason),
                None => assert!(found.is_empty(), "{}: {found:?}", c.reason),
            }
            tripped.extend(rules(&found));
        }
        let all: BTreeSet<&str> = RULES.iter().map(|r| r.name).collect();
        assert_eq!(tripped, all);
    }

    #[test]
    fn valid_maps_are_lint_clean() {
        for c in cases(Unit::Map, SEED, 40, Kind::Valid) {
            assert_eq!(
                c.expected_lints,
                Some(Vec::new()),
                "{}: {}",
                c.name,
                c.reason
            );
        }
        for c in cases(Unit::Map, SEED, 40, Kind::Malformed) {
            assert_eq!(c.expected_lints, None, "{}: {}", c.name, c.reason);
        }
    }

    /// Every lint mutant of a real map is loaded by DDNet and differs
    /// from the map in its rule's lints alone, and they cover every rule.
    #[test]
    fn lint_mutants_of_real_maps_trip_exactly_their_rule() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/map");
        let mut covered = BTreeSet::new();
        for path in [
            "ddnet-20.1/coverage.map",
            "ddnet-data/ctf1.map",
            "teeworlds-data/dm1.map",
        ] {
            let bytes = std::fs::read(root.join(path)).expect(path);
            let before = lints(&bytes);
            let (mutants, _) = mutate(Unit::Map, &bytes, 5, 60);
            for m in mutants {
                let Mutation::MapLint { rule } = m.mutation else {
                    continue;
                };
                let name = format!("{path} {}: {}", m.case.name, m.case.reason);
                assert!(m.judgement.accepted, "{name}: {:?}", m.judgement);
                assert_ne!(m.case.class, Class::MustReject, "{name}");
                assert!(m.case.reason.contains(rule), "{name}");
                let after = lints(&m.case.bytes);
                assert_eq!(m.case.expected_lints.as_ref(), Some(&after), "{name}");
                let of = |l: &[Lint], mine: bool| -> Vec<Lint> {
                    l.iter()
                        .filter(|l| (l.rule == rule) == mine)
                        .cloned()
                        .collect()
                };
                assert_eq!(of(&after, false), of(&before, false), "{name}");
                assert_ne!(of(&after, true), of(&before, true), "{name}");
                assert!(!of(&after, true).is_empty(), "{name}");
                assert_eq!(judge(Unit::Map, &m.case.bytes), m.judgement, "{name}");
                covered.insert(rule);
            }
        }
        let all: BTreeSet<&str> = RULES.iter().map(|r| r.name).collect();
        assert_eq!(covered, all);
    }

    /// The `map_lint` unit of the standard suite: its cases trip every
    /// rule; a checker that lists its lints its own way passes, one that
    /// misses a rule does not.
    #[test]
    fn the_map_lint_unit_compares_lints_as_sets() {
        use crate::conform::{self, Answer, Case, Expected, InProcess, Info, reference_answer};
        use serde_json::{Value, json};
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let suite = crate::generate::suite::standard(&[corpus], &[Unit::MapLint]).unwrap();
        let mut tripped = BTreeSet::new();
        for c in &suite.cases {
            if let Expected::Json(v) = &c.expected {
                for l in v.value()["lints"].as_array().into_iter().flatten() {
                    tripped.insert(l["rule"].as_str().unwrap_or_default().to_owned());
                }
            }
        }
        assert_eq!(tripped.len(), RULES.len(), "{tripped:?}");
        // One lint per tile, last first, no item where a layer is named.
        fn per_tile(case: &Case) -> Answer {
            let Answer::Decoded(v) = reference_answer(case) else {
                return reference_answer(case);
            };
            let mut lints = Vec::new();
            for l in v["lints"].as_array().into_iter().flatten() {
                let item = if l["layer"].is_null() {
                    l["item"].clone()
                } else {
                    Value::Null
                };
                let tiles = l["tiles"].as_array().cloned().unwrap_or_default();
                if tiles.is_empty() {
                    lints.push(json!({"rule": l["rule"], "layer": l["layer"], "item": item, "count": l["count"]}));
                }
                for t in tiles {
                    lints.push(
                        json!({"rule": l["rule"], "layer": l["layer"], "count": 1, "tiles": [t]}),
                    );
                }
            }
            lints.reverse();
            Answer::Decoded(json!({ "lints": lints }))
        }
        fn no_tune(case: &Case) -> Answer {
            match reference_answer(case) {
                Answer::Decoded(mut v) => {
                    if let Some(l) = v["lints"].as_array_mut() {
                        l.retain(|l| l["rule"] != "tune_number_zero");
                    }
                    Answer::Decoded(v)
                }
                other => other,
            }
        }
        let info = || Info::new("checker", "0").unit(Unit::MapLint, false);
        for (name, answer, passes) in [
            ("reference", reference_answer as fn(&Case) -> Answer, true),
            ("per tile", per_tile, true),
            ("no tune zones", no_tune, false),
        ] {
            let report = conform::run(&suite, &mut InProcess::new(info(), answer), None).unwrap();
            assert_eq!(report.failed, !passes, "{name}");
        }
    }
}
