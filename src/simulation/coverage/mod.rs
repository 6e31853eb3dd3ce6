//! What the model covers of DDNet's physics, in one table: every tile
//! index of each physics layer, every entity, weapon, tuning, command and
//! setting of DDNet 16.4 and 20.1 that can move a character, each
//! *modelled*, *detected* (not modelled: a player who meets it gets a
//! "not modelled" event and is not judged until the model can judge
//! again) or *unknown*. An index the table does not have is a feature
//! the model lacks, hence detected.
//!
//! The same table drives the world's detection ([`Watch`]: what a
//! character may meet on its map), `map info`'s list of what a map holds
//! that the model lacks ([`map_features`]) and docs/physics-coverage.md
//! ([`markdown`]; a test keeps the file and the table the same).

mod table;

use crate::map::items::Physics;
use crate::simulation::Release;
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::tuning;
use serde::Serialize;
use std::collections::BTreeMap;

/// Game, front and switch layer indices from here on are entities.
const ENTITY_OFFSET: u8 = 255 - 16 * 4;
/// A character's half width, and how far a pickup reaches besides
/// (`PICKUP_PHYSICS_RADIUS` plus `ms_CollisionExtraSize`, plus the
/// character's half width): a character within this of an entity touches it.
const TOUCH: f32 = 14.0 + 20.0 + 14.0;
/// The longest light: three tiles and three per laser modifier step, at
/// most `32 * 3 + 32 * 2 * 3`.
const LASER_LENGTH: f32 = 288.0;

/// How far the model goes with a feature, in one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The model does what DDNet does (which may be nothing).
    Modelled,
    /// Not modelled; a player who meets it is not judged.
    Detected,
    /// Neither modelled nor detected: not known to matter.
    Unknown,
    /// The release has no such thing.
    Absent,
}

impl Status {
    /// As the doc's table shows it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Modelled => "modelled",
            Status::Detected => "detected",
            Status::Unknown => "unknown",
            Status::Absent => "-",
        }
    }
}

/// Which layers an entity row is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntityLayers {
    /// The game layer only.
    Game,
    /// The front and switch layers.
    FrontSwitch,
    /// Every layer DDNet takes entities from (game, front, switch).
    All,
}

/// What a row is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// Indices `first..=last` of the game and front layers.
    Tile {
        /// The first index.
        first: u8,
        /// The last.
        last: u8,
    },
    /// A tele layer kind.
    Tele(u8),
    /// A speedup layer kind (of a tile with force); `None`: every other.
    Speedup(Option<u8>),
    /// A switch layer kind, with a switch number (`Some(true)`), without
    /// (`Some(false)`) or either.
    Switch(u8, Option<bool>),
    /// The tune layer.
    Tune,
    /// Entities `first..=last` (the index less `ENTITY_OFFSET`).
    Entity {
        /// The first entity.
        first: u8,
        /// The last.
        last: u8,
        /// In which layers.
        layers: EntityLayers,
    },
    /// A weapon.
    Weapon,
    /// A tuning parameter.
    Tuning,
    /// A console or chat command, or a client message.
    Command,
    /// A server setting; `at_start`: detected when the header's config
    /// sets it.
    Setting {
        /// A header that sets it makes everybody unjudged from the start.
        at_start: bool,
    },
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Feature {
    /// What it is about.
    pub what: What,
    /// DDNet's name (a list for rows of several).
    pub name: &'static str,
    /// In 16.4 and in 20.1.
    pub status: [Status; 2],
    /// What it does, or why the model does not.
    pub note: &'static str,
    /// Corpus recordings (`corpus/teehistorian/NAME.teehistorian`) where
    /// it happened: a modelled row's are simulated exactly, a detected
    /// row's name it.
    pub proof: &'static [&'static str],
}

impl Feature {
    /// Its status in `release`.
    pub fn status_in(&self, release: Release) -> Status {
        self.status[column(release)]
    }
}

fn column(release: Release) -> usize {
    match release {
        Release::Ddnet16_4 => 0,
        Release::Ddnet20_1 => 1,
    }
}

/// Every row: the table's, then one per tuning parameter.
pub fn features() -> Vec<Feature> {
    let mut rows = table::FEATURES.to_vec();
    let old: Vec<&str> = tuning::param_names(Release::Ddnet16_4).collect();
    for name in tuning::param_names(Release::Ddnet20_1) {
        let in_16_4 = match old.contains(&name) {
            true => Status::Modelled,
            false => Status::Absent,
        };
        let proof: &'static [&'static str] = match name {
            "gravity" => &["ddnet-16.4/phys_gravity_fall"],
            _ => &[],
        };
        rows.push(Feature {
            what: What::Tuning,
            name,
            status: [in_16_4, Status::Modelled],
            note: "global and per tune zone",
            proof,
        });
    }
    rows
}

/// What the table says of one thing a map holds.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Found {
    /// The feature's name, with its layer.
    name: String,
    status: [Status; 2],
    /// For an entity, its index (how far it reaches).
    entity: Option<u8>,
    /// For a tile, its index or kind in its layer.
    tile: Option<u8>,
}

fn found(f: &Feature, layer: Physics, entity: Option<u8>, tile: Option<u8>) -> Found {
    // An entity by its own name, not its row's.
    let name = entity
        .and_then(|e| table::ENTITY_NAMES.get(usize::from(e)))
        .filter(|n| !n.is_empty())
        .unwrap_or(&f.name);
    Found {
        name: format!("{name} in the {} layer", layer_name(layer)),
        status: f.status,
        entity,
        tile,
    }
}

/// The layer as the names say it: `game`, `front`, ...
fn layer_name(layer: Physics) -> String {
    layer.name().to_ascii_lowercase()
}

fn unknown(layer: Physics, index: u8) -> Found {
    Found {
        name: format!("unknown index {index} in the {} layer", layer_name(layer)),
        status: [Status::Detected; 2],
        entity: None,
        tile: None,
    }
}

/// The row of map cell `i` of `layer`, `None` when the cell is empty.
fn classify(col: &Collision, layer: Physics, i: usize) -> Option<Found> {
    let rows = table::FEATURES;
    let entity = |e: u8| {
        let in_layer = |l: EntityLayers| match l {
            EntityLayers::All => true,
            EntityLayers::Game => layer == Physics::Game,
            EntityLayers::FrontSwitch => layer != Physics::Game,
        };
        rows.iter()
            .find(|f| matches!(f.what, What::Entity { first, last, layers } if (first..=last).contains(&e) && in_layer(layers)))
            .map(|f| found(f, layer, Some(e), None))
            .unwrap_or_else(|| Found {
                entity: Some(e),
                ..unknown(layer, e + ENTITY_OFFSET)
            })
    };
    let tile = |index: u8| {
        rows.iter()
            .find(
                |f| matches!(f.what, What::Tile { first, last } if (first..=last).contains(&index)),
            )
            .map_or_else(
                || unknown(layer, index),
                |f| found(f, layer, None, Some(index)),
            )
    };
    match layer {
        Physics::Game | Physics::Front => {
            let index = match layer {
                Physics::Game => col.game_index(i),
                _ => col.front_index(i),
            };
            match index {
                0 => None,
                e if e >= ENTITY_OFFSET => Some(entity(e - ENTITY_OFFSET)),
                t => Some(tile(t)),
            }
        }
        Physics::Tele => {
            let (kind, _) = col.tele_at(i);
            (kind != 0).then(|| {
                rows.iter()
                    .find(|f| f.what == What::Tele(kind))
                    .map_or_else(
                        || unknown(layer, kind),
                        |f| found(f, layer, None, Some(kind)),
                    )
            })
        }
        Physics::Speedup => col.speedup_at(i).map(|s| {
            let f = rows
                .iter()
                .find(|f| f.what == What::Speedup(Some(s.kind)))
                .or_else(|| rows.iter().find(|f| f.what == What::Speedup(None)));
            f.map_or_else(|| unknown(layer, s.kind), |f| found(f, layer, None, None))
        }),
        Physics::Switch => {
            let (kind, number, _) = col.switch_at(i);
            match kind {
                0 => None,
                e if e >= ENTITY_OFFSET => Some(entity(e - ENTITY_OFFSET)),
                k => Some(
                    rows.iter()
                        .find(|f| match f.what {
                            What::Switch(kind, numbered) => {
                                kind == k && numbered.is_none_or(|n| n == (number > 0))
                            }
                            _ => false,
                        })
                        .map_or_else(|| unknown(layer, k), |f| found(f, layer, None, None)),
                ),
            }
        }
        // Every tune zone is modelled.
        Physics::Tune => None,
    }
}

/// The map cells of `col`, row by row, with their (x, y) tile.
fn cells(col: &Collision) -> impl Iterator<Item = (usize, i32, i32)> + '_ {
    let (w, h) = (col.width(), col.height());
    (0..h).flat_map(move |y| (0..w).map(move |x| ((y * w + x) as usize, x, y)))
}

/// A feature of a map that the model lacks in one release or both.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapFeature {
    /// DDNet's name, with its layer.
    pub feature: String,
    /// How many tiles hold it.
    pub count: u64,
    /// The first (row by row) of them: its tile column and row.
    pub first: (i32, i32),
    /// Its status, by release (`"16.4"`, `"20.1"`).
    pub status: BTreeMap<&'static str, Status>,
}

/// What `col`'s map holds that the model lacks (not modelled in some
/// release), in the order of their first tile (row by row, each cell's
/// layers in `TILESLAYERFLAG` order).
pub fn map_features(col: &Collision) -> Vec<MapFeature> {
    let mut out: Vec<MapFeature> = Vec::new();
    for (i, x, y) in cells(col) {
        for layer in Physics::ALL {
            let Some(f) = classify(col, layer, i) else {
                continue;
            };
            if f.status.iter().all(|&s| s == Status::Modelled) {
                continue;
            }
            match out.iter_mut().find(|m| m.feature == f.name) {
                Some(m) => m.count += 1,
                None => out.push(MapFeature {
                    feature: f.name,
                    count: 1,
                    first: (x, y),
                    status: [Release::Ddnet16_4, Release::Ddnet20_1]
                        .into_iter()
                        .map(|r| (r.number(), f.status[column(r)]))
                        .collect(),
                }),
            }
        }
    }
    out
}

/// The settings of a header's config that the model does not read but
/// that change physics from the start, for `release`: each `NAME VALUE`.
pub fn start_settings(release: Release, config: &[(String, String)]) -> Vec<String> {
    config
        .iter()
        .filter(|(name, _)| {
            table::FEATURES.iter().any(|f| {
                f.what == (What::Setting { at_start: true })
                    && f.name == name
                    && f.status_in(release) == Status::Detected
            })
        })
        .map(|(name, value)| format!("{name} {value}"))
        .collect()
}

/// No feature in this cell.
const NONE: u16 = u16::MAX;

/// What a character may meet on a map that the model lacks, in one
/// release: by map cell, the tiles it touches and the entities that
/// reach it; the front and switch layers' spawn points; the weapon
/// teleporters.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    width: i32,
    height: i32,
    names: Vec<String>,
    /// Per cell: the feature a character touching it meets (`NONE`).
    touch: Vec<u16>,
    /// Per cell: the entity that reaches a character there (`NONE`).
    near: Vec<u16>,
    /// Per cell: a weapon teleporter (`NONE`).
    weapon_tele: Vec<u16>,
    /// Spawn points the model does not take.
    spawn: Option<u16>,
}

impl Watch {
    /// What to watch for on `col`'s map in `release`, draggers reaching
    /// `dragger_range` and turrets `plasma_range` (`sv_dragger_range`,
    /// `sv_plasma_range`).
    pub fn new(release: Release, col: &Collision, dragger_range: i32, plasma_range: i32) -> Watch {
        let mut w = Watch {
            width: col.width(),
            height: col.height(),
            ..Watch::default()
        };
        let n = (col.width() as usize) * (col.height() as usize);
        for (i, x, y) in cells(col) {
            for layer in Physics::ALL {
                let Some(f) = classify(col, layer, i) else {
                    continue;
                };
                if f.status[column(release)] != Status::Detected {
                    continue;
                }
                let id = w.id(f.name);
                let centre = Vec2::new(x as f32 * 32.0 + 16.0, y as f32 * 32.0 + 16.0);
                match (layer, f.entity, f.tile) {
                    (Physics::Tele, None, Some(14)) => {
                        w.weapon_tele.resize(n, NONE);
                        w.weapon_tele[i] = id;
                    }
                    (_, Some(1..=3), _) => w.spawn = Some(id),
                    (_, Some(e), _) => {
                        let r = match e {
                            12..=18 => LASER_LENGTH + 14.0,
                            29..=32 => plasma_range as f32 + 14.0,
                            42..=47 => dragger_range as f32 + 14.0,
                            _ => TOUCH,
                        };
                        w.around(n, centre, r, id);
                    }
                    // The entities CP tiles move may stand on any of them.
                    (_, None, Some(64 | 65)) => w.around(n, centre, 32.0 + TOUCH, id),
                    _ => {
                        w.touch.resize(n, NONE);
                        if w.touch[i] == NONE {
                            w.touch[i] = id;
                        }
                    }
                }
            }
        }
        w
    }

    fn id(&mut self, name: String) -> u16 {
        match self.names.iter().position(|n| *n == name) {
            Some(i) => i as u16,
            None => {
                self.names.push(name);
                (self.names.len() - 1).min(usize::from(NONE) - 1) as u16
            }
        }
    }

    /// Marks `id` near every cell within `r` of `centre` (and half a
    /// tile's diagonal more: a character anywhere in the cell).
    fn around(&mut self, n: usize, centre: Vec2, r: f32, id: u16) {
        self.near.resize(n, NONE);
        let reach = r + 23.0;
        let tiles = (reach / 32.0).ceil() as i32 + 1;
        let (cx, cy) = ((centre.x / 32.0) as i32, (centre.y / 32.0) as i32);
        for y in (cy - tiles).max(0)..=(cy + tiles).min(self.height - 1) {
            for x in (cx - tiles).max(0)..=(cx + tiles).min(self.width - 1) {
                let c = Vec2::new(x as f32 * 32.0 + 16.0, y as f32 * 32.0 + 16.0);
                let cell = &mut self.near[(y * self.width + x) as usize];
                if c.distance(centre) <= reach && *cell == NONE {
                    *cell = id;
                }
            }
        }
    }

    /// Nothing to watch for.
    pub fn is_empty(&self) -> bool {
        self.touch.is_empty()
            && self.near.is_empty()
            && self.weapon_tele.is_empty()
            && self.spawn.is_none()
    }

    /// The map cell of a world position (`GetMapIndex`'s, clamped).
    fn cell(&self, p: Vec2) -> usize {
        let x = (p.x as i32 / 32).clamp(0, self.width - 1);
        let y = (p.y as i32 / 32).clamp(0, self.height - 1);
        (y * self.width + x) as usize
    }

    fn at(&self, grid: &[u16], p: Vec2) -> Option<&str> {
        match grid.get(self.cell(p)) {
            Some(&id) if id != NONE => self.names.get(usize::from(id)).map(String::as_str),
            _ => None,
        }
    }

    /// What a character whose box is centred on `p` meets there: a tile
    /// under a corner of its box, or an entity that reaches it.
    pub fn met(&self, p: Vec2) -> Option<&str> {
        if !self.touch.is_empty() {
            let h = 14.0;
            for (dx, dy) in [(0.0, 0.0), (-h, -h), (h, -h), (-h, h), (h, h)] {
                if let Some(f) = self.at(&self.touch, Vec2::new(p.x + dx, p.y + dy)) {
                    return Some(f);
                }
            }
        }
        self.at(&self.near, p)
    }

    /// The weapon teleporter at `p`, if any.
    pub fn weapon_teleporter(&self, p: Vec2) -> Option<&str> {
        self.at(&self.weapon_tele, p)
    }

    /// Whether the map has weapon teleporters.
    pub fn has_weapon_teleporters(&self) -> bool {
        !self.weapon_tele.is_empty()
    }

    /// The spawn points the model does not take, if the map has some:
    /// every spawn may be elsewhere.
    pub fn spawn(&self) -> Option<&str> {
        self.spawn
            .and_then(|id| self.names.get(usize::from(id)))
            .map(String::as_str)
    }
}

/// Whether a row belongs to a section of the doc.
type InSection = fn(&What) -> bool;

/// The doc's sections: each title and the rows it holds.
const SECTIONS: &[(&str, InSection)] = &[
    ("Game and front layer tiles", |w| {
        matches!(w, What::Tile { .. })
    }),
    ("Tele layer", |w| matches!(w, What::Tele(_))),
    ("Speedup layer", |w| matches!(w, What::Speedup(_))),
    ("Switch layer", |w| matches!(w, What::Switch(..))),
    ("Tune layer", |w| matches!(w, What::Tune)),
    ("Entities (game, front and switch layers)", |w| {
        matches!(w, What::Entity { .. })
    }),
    ("Weapons", |w| matches!(w, What::Weapon)),
    ("Tunings", |w| matches!(w, What::Tuning)),
    ("Commands and messages", |w| matches!(w, What::Command)),
    ("Settings", |w| matches!(w, What::Setting { .. })),
];

/// The index column of a row.
fn index(w: &What) -> String {
    match *w {
        What::Tile { first, last } if first == last => first.to_string(),
        What::Tile { first, last } => format!("{first}-{last}"),
        What::Tele(k) | What::Switch(k, _) | What::Speedup(Some(k)) => k.to_string(),
        What::Speedup(None) => "other".into(),
        What::Entity { first, last, .. } if first == last => {
            format!("{first} ({})", u16::from(first) + u16::from(ENTITY_OFFSET))
        }
        What::Entity { first, last, .. } => format!(
            "{first}-{last} ({}-{})",
            u16::from(first) + u16::from(ENTITY_OFFSET),
            u16::from(last) + u16::from(ENTITY_OFFSET)
        ),
        What::Tune => "68".into(),
        What::Setting { at_start: true } => "header".into(),
        _ => String::new(),
    }
}

/// The table as docs/physics-coverage.md shows it, between its markers.
pub fn markdown() -> String {
    let rows = features();
    let mut out = String::new();
    for (title, in_section) in SECTIONS {
        out.push_str(&format!(
            "\n### {title}\n\n| index | DDNet | 16.4 | 20.1 | what | recordings |\n|---|---|---|---|---|---|\n"
        ));
        for f in rows.iter().filter(|f| in_section(&f.what)) {
            let proof: Vec<String> = f.proof.iter().map(|p| format!("`{p}`")).collect();
            out.push_str(&format!(
                "| {} | `{}` | {} | {} | {} | {} |\n",
                index(&f.what),
                f.name,
                f.status[0].word(),
                f.status[1].word(),
                f.note,
                proof.join(", ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests;
