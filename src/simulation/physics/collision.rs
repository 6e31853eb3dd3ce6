//! The game layer as DDNet's physics sees it (`CCollision`,
//! `src/game/collision.cpp`): which tile a world position falls in, and
//! moving a box or a point, or casting a line, against the solid ones.
//!
//! Positions outside the map are clamped to its border tiles, so the
//! border goes on for ever. Only solid, death, nohook and nolaser tiles
//! (indices 1 to 4) are kinds here; every other index, entities
//! included, is air. Solid and nohook both stop movement.

use super::Vec2;

use super::fmath::{round_tiles, trunc_to_int};
use super::round_to_int;
use std::cmp::Ordering;
use crate::map::items::Physics;
use crate::map::tiles::{SpeedupTile, SwitchTile, TeleTile, Tile, TuneTile};

/// A tile a game layer may hold that collision knows.
pub const TILE_SOLID: u8 = 1;
/// Kills a character that touches it.
pub const TILE_DEATH: u8 = 2;
/// Solid, but a hook does not hold to it.
pub const TILE_NOHOOK: u8 = 3;
/// Stops lasers, not characters.
pub const TILE_NOLASER: u8 = 4;

/// A map's game layer, for collision.
#[derive(Clone, Debug, PartialEq)]
pub struct Collision {
    width: i32,
    height: i32,
    /// The collision kind of each tile (0 or `TILE_SOLID` to
    /// `TILE_NOLASER`), row by row.
    kinds: Vec<u8>,
    /// Every tile's index as the map has it, row by row (entities
    /// included).
    indices: Vec<u8>,
    /// The game layer's tiles (index and flags).
    game: Vec<Tile>,
    /// The DDRace layers, each of the game layer's size.
    pub(super) front: Option<Vec<Tile>>,
    pub(super) tele: Option<Vec<TeleTile>>,
    pub(super) speedup: Option<Vec<SpeedupTile>>,
    /// Switch tiles, their kinds cleaned as DDNet's loader does.
    pub(super) switch: Option<Vec<SwitchTile>>,
    pub(super) tune: Option<Vec<TuneTile>>,
    /// The highest switch number of the switch layer.
    pub(super) highest_switch: i32,
    /// The doors' stoppers (`m_pDoor`): each tile's switch number where
    /// a door lies; empty without a switch layer ([`doors`]).
    doors: Vec<Option<u8>>,
    /// The map's settings, one console line each ([`settings`]).
    settings: Vec<Vec<u8>>,
    /// Teleporter outs (`TILE_TELEOUT`) by number − 1, row by row.
    pub(super) tele_outs: Vec<Vec<Vec2>>,
    /// Checkpoint teleporter outs (`TILE_TELECHECKOUT`) by number − 1.
    pub(super) tele_check_outs: Vec<Vec<Vec2>>,
    /// What the walks along a path ask of every tile they pass, worked
    /// out once per layer set ([`Collision::index_tiles`]): `TileExists`
    /// of each tile.
    exists: Vec<bool>,
    /// The stoppers of each tile, game and front layer together: the
    /// [`cantmove`] bits it gives a character on it (low four bits) and
    /// those it gives one beside it, before the side is picked (high
    /// four) ([`restriction`]).
    stops: Vec<u8>,
    /// Whether any tile has a stopper: without one, no move is
    /// restricted but by doors.
    any_stops: bool,
    /// Whether any tile of the game or the front layer kills
    /// (`TILE_DEATH`): without one, no point is deadly.
    any_death: bool,
    /// Whether `exists` holds anywhere: without, no walk finds a tile (a
    /// map without DDRace tiles).
    any_exists: bool,
    /// Where `exists` holds, by row: a walk through no such tile finds
    /// nothing.
    exists_rows: RowCounts,
    /// Per tile, how far the nearest solid or nohook tile (what `TestBox`
    /// tests) lies, in tiles on either axis (Chebyshev, at most 255; 0 on
    /// such a tile): a move that keeps nearer collides nowhere.
    clearance: Vec<u8>,
    /// Per tile, whether it (bit 0) and the tiles right of it (bit 1),
    /// below it (bit 2) and below right (bit 3) are solid or nohook (none
    /// past the map's edge): `TestBox` of a box at most a tile wide and
    /// high is one lookup.
    corners: Vec<u8>,
}

/// Per row of tiles, how many of some sort lie before each column:
/// whether a rectangle holds one is a subtraction a row.
#[derive(Clone, Debug, Default, PartialEq)]
struct RowCounts {
    width: usize,
    /// `width + 1` counts a row.
    counts: Vec<u32>,
}

impl RowCounts {
    fn new(width: usize, sort: impl Iterator<Item = bool>) -> RowCounts {
        let mut counts = Vec::new();
        let mut sort = sort.peekable();
        while sort.peek().is_some() {
            let mut n = 0;
            counts.push(n);
            for yes in sort.by_ref().take(width) {
                n += u32::from(yes);
                counts.push(n);
            }
        }
        RowCounts { width, counts }
    }

    /// Whether a tile of the sort lies in columns `x` of rows `y`.
    fn any(&self, [x, y]: [(usize, usize); 2]) -> bool {
        (y.0..=y.1).any(|row| {
            let at = |col: usize| self.counts[row * (self.width + 1) + col];
            at(x.1 + 1) != at(x.0)
        })
    }
}

/// Per tile of a grid `width` wide, the Chebyshev distance in tiles to
/// the nearest solid or nohook tile, at most 255: two sweeps, each
/// taking the least of the neighbours already seen plus one.
fn clearance(kinds: &[u8], width: usize) -> Vec<u8> {
    let mut d: Vec<u8> = kinds
        .iter()
        .map(|&k| {
            if matches!(k, TILE_SOLID | TILE_NOHOOK) {
                0
            } else {
                u8::MAX
            }
        })
        .collect();
    let height = d.len() / width.max(1);
    let mut relax = |x: usize, y: usize, forward: bool| {
        let i = y * width + x;
        let mut least = d[i];
        let (xs, dy) = (
            [x.wrapping_sub(1), x, x + 1],
            if forward { y.wrapping_sub(1) } else { y + 1 },
        );
        for (nx, ny) in xs
            .into_iter()
            .map(|nx| (nx, dy))
            .chain([(if forward { x.wrapping_sub(1) } else { x + 1 }, y)])
        {
            if nx < width && ny < height {
                least = least.min(d[ny * width + nx].saturating_add(1));
            }
        }
        d[i] = least;
    };
    for y in 0..height {
        for x in 0..width {
            relax(x, y, true);
        }
    }
    for y in (0..height).rev() {
        for x in (0..width).rev() {
            relax(x, y, false);
        }
    }
    d
}

/// Per tile of a grid `width` wide, which of it and its neighbours right,
/// below and below right are solid or nohook (bits 0 to 3).
fn corners(kinds: &[u8], width: usize) -> Vec<u8> {
    let solid = |x: usize, y: usize| {
        x < width
            && kinds
                .get(y * width + x)
                .is_some_and(|&k| matches!(k, TILE_SOLID | TILE_NOHOOK))
    };
    (0..kinds.len())
        .map(|i| {
            let (x, y) = (i % width, i / width);
            [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
                .into_iter()
                .enumerate()
                .fold(0, |bits, (b, (x, y))| bits | u8::from(solid(x, y)) << b)
        })
        .collect()
}

/// Why a map gives no collision to simulate on.
#[derive(Clone, Debug, PartialEq)]
pub enum MapError {
    /// The file is not a map DDNet loads (its datafile does not decode).
    Decode(crate::codec::DecodeError),
    /// No tiles layer with the game flag in any group.
    NoGameLayer,
    /// The game layer (item `item`) has fewer tiles than its size.
    GameLayerShort {
        /// Its item's index.
        item: usize,
    },
    /// The game layer (item `item`) holds no plain tiles.
    GameLayerNotTiles {
        /// Its item's index.
        item: usize,
    },
    /// A physics layer's tiles cannot be read.
    Layer {
        /// Which layer.
        layer: Physics,
        /// Its item's index.
        item: usize,
        /// Why.
        fault: crate::map::grid::GridFault,
    },
    /// A physics layer whose size is not the game layer's.
    SizeDiffers {
        /// Which layer.
        layer: Physics,
        /// Its item's index.
        item: usize,
        /// Its width and height.
        size: (i32, i32),
        /// The game layer's.
        game: (i32, i32),
    },
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::Decode(e) => write!(f, "{e}"),
            MapError::NoGameLayer => {
                f.write_str("no game layer (a tiles layer with flag 1 in a group)")
            }
            MapError::GameLayerShort { item } => {
                write!(
                    f,
                    "the game layer (item {item}) has fewer tiles than its size"
                )
            }
            MapError::GameLayerNotTiles { item } => {
                write!(f, "the game layer (item {item}) holds no plain tiles")
            }
            MapError::Layer {
                layer: Physics::Game,
                item,
                fault,
            } => write!(f, "the game layer (item {item}): {fault}"),
            MapError::Layer { layer, item, fault } => {
                write!(f, "the {layer:?} layer (item {item}): {fault}")
            }
            MapError::SizeDiffers {
                layer,
                item,
                size,
                game,
            } => write!(
                f,
                "the {layer:?} layer (item {item}) is {}x{}, the game layer {}x{}",
                size.0, size.1, game.0, game.1
            ),
        }
    }
}

impl std::error::Error for MapError {}

/// Move-restriction bits (`CANTMOVE_*`), from stoppers and doors.
pub mod cantmove {
    /// No moving left.
    pub const LEFT: i32 = 1;
    /// No moving right.
    pub const RIGHT: i32 = 2;
    /// No moving up.
    pub const UP: i32 = 4;
    /// No moving down.
    pub const DOWN: i32 = 8;
}

/// Layer indices the DDRace rules name (`TILE_*` of `mapitems.h`).
#[allow(missing_docs)]
pub mod tile {
    pub const THROUGH_CUT: u8 = 5;
    pub const THROUGH: u8 = 6;
    pub const JUMP: u8 = 7;
    pub const FREEZE: u8 = 9;
    pub const TELEINEVIL: u8 = 10;
    pub const UNFREEZE: u8 = 11;
    pub const DFREEZE: u8 = 12;
    pub const DUNFREEZE: u8 = 13;
    pub const TELEINWEAPON: u8 = 14;
    pub const TELEINHOOK: u8 = 15;
    pub const WALLJUMP: u8 = 16;
    pub const EHOOK_ENABLE: u8 = 17;
    pub const EHOOK_DISABLE: u8 = 18;
    pub const HIT_ENABLE: u8 = 19;
    pub const HIT_DISABLE: u8 = 20;
    pub const SOLO_ENABLE: u8 = 21;
    pub const SOLO_DISABLE: u8 = 22;
    pub const SWITCHTIMEDOPEN: u8 = 22;
    pub const SWITCHTIMEDCLOSE: u8 = 23;
    pub const SWITCHOPEN: u8 = 24;
    pub const SWITCHCLOSE: u8 = 25;
    pub const TELEIN: u8 = 26;
    pub const TELEOUT: u8 = 27;
    pub const SPEED_BOOST_OLD: u8 = 28;
    pub const SPEED_BOOST: u8 = 29;
    pub const TELECHECK: u8 = 29;
    pub const TELECHECKOUT: u8 = 30;
    pub const TELECHECKIN: u8 = 31;
    pub const REFILL_JUMPS: u8 = 32;
    pub const START: u8 = 33;
    pub const FINISH: u8 = 34;
    pub const STOP: u8 = 60;
    pub const STOPS: u8 = 61;
    pub const STOPA: u8 = 62;
    pub const TELECHECKINEVIL: u8 = 63;
    pub const THROUGH_ALL: u8 = 66;
    pub const THROUGH_DIR: u8 = 67;
    pub const OLDLASER: u8 = 71;
    pub const NPC: u8 = 72;
    pub const EHOOK: u8 = 73;
    pub const NOHIT: u8 = 74;
    pub const NPH: u8 = 75;
    pub const ADD_TIME: u8 = 79;
    pub const NPC_DISABLE: u8 = 88;
    pub const UNLIMITED_JUMPS_DISABLE: u8 = 89;
    pub const JETPACK_DISABLE: u8 = 90;
    pub const NPH_DISABLE: u8 = 91;
    pub const SUBTRACT_TIME: u8 = 95;
    pub const TELE_GUN_ENABLE: u8 = 96;
    pub const TELE_LASER_DISABLE: u8 = 129;
    pub const ALLOW_TELE_GUN: u8 = 98;
    pub const ALLOW_BLUE_TELE_GUN: u8 = 99;
    pub const NPC_ENABLE: u8 = 104;
    pub const UNLIMITED_JUMPS_ENABLE: u8 = 105;
    pub const JETPACK_ENABLE: u8 = 106;
    pub const NPH_ENABLE: u8 = 107;
    pub const CP: u8 = 64;
    pub const CP_F: u8 = 65;
    pub const LFREEZE: u8 = 144;
    pub const LUNFREEZE: u8 = 145;
}

/// Tile flags (`TILEFLAG_*`, `ROTATION_*`).
const XFLIP: u8 = 1;
const YFLIP: u8 = 2;
const ROTATE: u8 = 8;
const ROTATION_0: u8 = 0;
const ROTATION_90: u8 = ROTATE;
const ROTATION_180: u8 = XFLIP | YFLIP;
const ROTATION_270: u8 = XFLIP | YFLIP | ROTATE;

impl Collision {
    /// The game layer of `width` by `height` tiles, row by row. `None`
    /// when `tiles` does not hold exactly that many tiles or a side is
    /// not positive (DDNet's loader refuses such a map).
    pub fn new(width: i32, height: i32, tiles: &[Tile]) -> Option<Collision> {
        let count = usize::try_from(width)
            .ok()?
            .checked_mul(usize::try_from(height).ok()?)?;
        if width <= 0 || height <= 0 || tiles.len() != count {
            return None;
        }
        let kinds = tiles
            .iter()
            .map(|t| match t.index {
                TILE_SOLID..=TILE_NOLASER => t.index,
                _ => 0,
            })
            .collect();
        Some(
            Collision {
                width,
                height,
                kinds,
                indices: tiles.iter().map(|t| t.index).collect(),
                game: tiles.to_vec(),
                front: None,
                tele: None,
                speedup: None,
                switch: None,
                tune: None,
                highest_switch: 0,
                doors: Vec::new(),
                settings: Vec::new(),
                tele_outs: vec![Vec::new(); 256],
                tele_check_outs: vec![Vec::new(); 256],
                exists: Vec::new(),
                stops: Vec::new(),
                any_stops: false,
                any_death: false,
                any_exists: false,
                exists_rows: RowCounts::default(),
                clearance: Vec::new(),
                corners: Vec::new(),
            }
            .index_tiles(),
        )
    }

    /// Works out the per-tile tables (`exists`, `stops`) from the layers
    /// as they now are: every `with_*` ends here.
    fn index_tiles(mut self) -> Collision {
        self.exists = (0..self.cells())
            .map(|i| self.tile_exists_of_layers(i))
            .collect();
        self.stops = (0..self.cells())
            .map(|i| {
                let layers = [Some(self.game[i]), self.front.as_ref().map(|f| f[i])];
                let (mut on, mut beside) = (0, 0);
                for t in layers.into_iter().flatten() {
                    on |= restriction(0, t);
                    beside |= (1..5).fold(0, |r, d| r | restriction(d, t));
                }
                (on | beside << 4) as u8
            })
            .collect();
        self.any_stops = self.stops.iter().any(|&s| s != 0);
        let front = self.front.iter().flatten().map(|t| t.index);
        self.any_death = self
            .kinds
            .iter()
            .copied()
            .chain(front)
            .any(|k| k == TILE_DEATH);
        let width = self.width as usize;
        self.any_exists = self.exists.contains(&true);
        self.exists_rows = RowCounts::new(width, self.exists.iter().copied());
        self.clearance = clearance(&self.kinds, width);
        self.corners = corners(&self.kinds, width);
        self
    }

    /// Whether no tile within `reach / 32 + 1` tiles of `at`'s on either
    /// axis is solid or nohook: the tiles of every integer coordinate
    /// within `reach` units of `at` truncated (clamped into the map, as
    /// every lookup is: truncating towards zero and clamping only bring
    /// tiles nearer). A caller's `reach` allows for its own roundings.
    fn clear_within(&self, at: Vec2, reach: f32) -> bool {
        let near = |v: f32| v.abs() < 1.0e6;
        if !(near(at.x) && near(at.y) && reach < 1.0e5) {
            return false;
        }
        let tile = |v: f32, n: i32| (trunc_to_int(v) / 32).clamp(0, n - 1);
        let i = tile(at.y, self.height) * self.width + tile(at.x, self.width);
        // In range: both are clamped into the grid.
        trunc_to_int(reach / 32.0) + 1 < i32::from(self.clearance[i as usize])
    }

    /// The columns and rows of the tiles that the points of the box
    /// spanned by `a` and `b`, widened by `margin` a side, fall in,
    /// however they are rounded (a unit more) and clamped; `None` past a
    /// million units or for NaN.
    fn tiles_between(&self, a: Vec2, b: Vec2, margin: Vec2) -> Option<[(usize, usize); 2]> {
        let near = |v: f32| v.abs() < 1.0e6;
        if !(near(a.x)
            && near(a.y)
            && near(b.x)
            && near(b.y)
            && margin.x < 1.0e6
            && margin.y < 1.0e6)
        {
            return None;
        }
        // Truncated then divided: in order, like every rounding of a
        // coordinate to a tile a unit either side.
        let tile = |v: f32, n: i32| (trunc_to_int(v) / 32).clamp(0, n - 1) as usize;
        let span = |a: f32, b: f32, margin: f32, n: i32| {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            (tile(lo - margin - 1.0, n), tile(hi + margin + 1.0, n))
        };
        Some([
            span(a.x, b.x, margin.x, self.width),
            span(a.y, b.y, margin.y, self.height),
        ])
    }

    /// How many tiles a layer of the game layer's size has.
    fn cells(&self) -> usize {
        self.game.len()
    }

    /// With a front layer (ignored unless of the game layer's size).
    pub fn with_front(mut self, tiles: Vec<Tile>) -> Collision {
        if tiles.len() == self.cells() {
            self.front = Some(tiles);
            self.lay_doors();
            return self.index_tiles();
        }
        self
    }

    /// With a tele layer: its outs are gathered by number, row by row.
    pub fn with_tele(mut self, tiles: Vec<TeleTile>) -> Collision {
        if tiles.len() != self.cells() {
            return self;
        }
        let w = self.width as usize;
        for (i, t) in tiles.iter().enumerate() {
            if t.number == 0 || t.kind == 0 {
                continue;
            }
            let at = Vec2::new((i % w) as f32 * 32.0 + 16.0, (i / w) as f32 * 32.0 + 16.0);
            let n = usize::from(t.number - 1);
            match t.kind {
                tile::TELEOUT => self.tele_outs[n].push(at),
                tile::TELECHECKOUT => self.tele_check_outs[n].push(at),
                _ => {}
            }
        }
        self.tele = Some(tiles);
        self.index_tiles()
    }

    /// With a speedup layer.
    pub fn with_speedup(mut self, tiles: Vec<SpeedupTile>) -> Collision {
        if tiles.len() == self.cells() {
            self.speedup = Some(tiles);
            return self.index_tiles();
        }
        self
    }

    /// With a switch layer; kinds DDNet's loader does not know become 0.
    pub fn with_switch(mut self, mut tiles: Vec<SwitchTile>) -> Collision {
        if tiles.len() != self.cells() {
            return self;
        }
        for t in &mut tiles {
            self.highest_switch = self.highest_switch.max(i32::from(t.number));
            let k = t.kind;
            if k <= tile::NPH_ENABLE
                && !((tile::JUMP..=tile::SUBTRACT_TIME).contains(&k)
                    || k == tile::ALLOW_TELE_GUN
                    || k == tile::ALLOW_BLUE_TELE_GUN)
            {
                t.kind = 0;
            }
        }
        self.switch = Some(tiles);
        self.lay_doors();
        self.index_tiles()
    }

    /// With a tune layer.
    pub fn with_tune(mut self, tiles: Vec<TuneTile>) -> Collision {
        if tiles.len() == self.cells() {
            self.tune = Some(tiles);
            return self.index_tiles();
        }
        self
    }

    /// The game layer of a map as DDNet's loader takes it
    /// ([`crate::map::Map::physics_layer`]), its tiles read by
    /// [`crate::map::grid::grid`] (blocks inflated up to `cap` bytes).
    /// The error says why the map gives no game layer.
    #[cfg(feature = "zlib")]
    pub fn of_map(
        datafile: &crate::map::Datafile<'_>,
        map: &crate::map::Map<'_>,
        cap: u64,
    ) -> Result<Collision, MapError> {
        use crate::map::grid::grid;
        use crate::map::tiles::Tiles;
        let (item, layer) = map
            .physics_layer(Physics::Game)
            .ok_or(MapError::NoGameLayer)?;
        let mut col = match grid(datafile, layer, cap) {
            Ok(Tiles::Tile(tiles)) => Collision::new(layer.width, layer.height, &tiles)
                .ok_or(MapError::GameLayerShort { item })?,
            Ok(_) => return Err(MapError::GameLayerNotTiles { item }),
            Err(fault) => {
                return Err(MapError::Layer {
                    layer: Physics::Game,
                    item,
                    fault,
                });
            }
        };
        for p in [
            Physics::Front,
            Physics::Tele,
            Physics::Speedup,
            Physics::Switch,
            Physics::Tune,
        ] {
            let Some((item, layer)) = map.physics_layer(p) else {
                continue;
            };
            if (layer.width, layer.height) != (col.width, col.height) {
                return Err(MapError::SizeDiffers {
                    layer: p,
                    item,
                    size: (layer.width, layer.height),
                    game: (col.width, col.height),
                });
            }
            col = match grid(datafile, layer, cap) {
                Ok(Tiles::Tile(t)) => col.with_front(t),
                Ok(Tiles::Tele(t)) => col.with_tele(t),
                Ok(Tiles::Speedup(t)) => col.with_speedup(t),
                Ok(Tiles::Switch(t)) => col.with_switch(t),
                Ok(Tiles::Tune(t)) => col.with_tune(t),
                Err(fault) => {
                    return Err(MapError::Layer {
                        layer: p,
                        item,
                        fault,
                    });
                }
            };
        }
        Ok(col.with_settings_of(datafile, map, cap))
    }

    /// The collision of a map file's bytes (its blocks inflated up to
    /// `cap` bytes).
    pub fn of_map_bytes(bytes: &[u8], cap: u64) -> Result<Collision, MapError> {
        let datafile = crate::map::Datafile::decode(bytes).map_err(MapError::Decode)?;
        Collision::of_map(&datafile, &crate::map::Map::new(&datafile), cap)
    }

    /// `GetPureMapIndex`: the tile at a float position, rounded, clamped.
    #[inline]
    pub fn pure_index(&self, p: Vec2) -> usize {
        let nx = (round_to_int(p.x) / 32).clamp(0, self.width - 1);
        let ny = (round_to_int(p.y) / 32).clamp(0, self.height - 1);
        (ny * self.width + nx) as usize
    }

    /// The tile a position truncates into, clamped.
    #[inline]
    fn truncated_index(&self, p: Vec2) -> usize {
        let nx = (trunc_to_int(p.x) / 32).clamp(0, self.width - 1);
        let ny = (trunc_to_int(p.y) / 32).clamp(0, self.height - 1);
        (ny * self.width + nx) as usize
    }

    /// `GetMapIndex`: the tile `p` truncates into, if anything DDRace
    /// acts on is there or beside it.
    // Always: a character a tick asks, mostly on maps where the first
    // test answers; out of line the call cost more than the answer.
    #[inline(always)]
    pub fn map_index(&self, p: Vec2) -> Option<usize> {
        if !self.any_exists {
            return None;
        }
        let i = self.truncated_index(p);
        self.tile_exists(i).then_some(i)
    }

    /// `GetMapIndices`: the tiles with something on them along the path
    /// from `prev` to `pos`, each once in a row.
    // The test inline, the walk out of line: asked a character a tick,
    // mostly on maps without DDRace tiles.
    #[inline(always)]
    pub fn map_indices(&self, prev: Vec2, pos: Vec2) -> Vec<usize> {
        if !self.any_exists {
            return Vec::new();
        }
        self.indices_on_the_way(prev, pos)
    }

    /// [`Collision::map_indices`] on a map with DDRace tiles.
    fn indices_on_the_way(&self, prev: Vec2, pos: Vec2) -> Vec<usize> {
        let d = prev.distance(pos);
        if d == 0.0 {
            let i = self.truncated_index(pos);
            return if self.tile_exists(i) {
                vec![i]
            } else {
                Vec::new()
            };
        }
        // No tile on the way has anything: every point of the walk lies
        // between the ends, give or take its rounding.
        if self
            .tiles_between(prev, pos, Vec2::new(1.0, 1.0))
            .is_some_and(|tiles| !self.exists_rows.any(tiles))
        {
            return Vec::new();
        }
        self.walk_indices(prev, pos, d)
    }

    /// [`Collision::map_indices`] without the tests for a walk that finds
    /// nothing: `GetMapIndices`' walk, `d` the distance.
    fn walk_indices(&self, prev: Vec2, pos: Vec2, d: f32) -> Vec<usize> {
        let end = (d + 1.0) as i32;
        let mut out = Vec::new();
        let mut last = 0;
        for i in 0..end {
            let t = prev.mix(pos, i as f32 / d);
            let index = self.truncated_index(t);
            if self.tile_exists(index) && last != index {
                out.push(index);
                last = index;
            }
        }
        out
    }

    /// `TileExists`: a DDRace tile on `i` or a stopper facing it.
    #[inline]
    fn tile_exists(&self, i: usize) -> bool {
        self.exists[i]
    }

    /// [`Collision::tile_exists`] worked out from the layers.
    fn tile_exists_of_layers(&self, i: usize) -> bool {
        let acts = |k: u8| {
            (tile::FREEZE..=tile::TELE_LASER_DISABLE).contains(&k)
                || (tile::LFREEZE..=tile::LUNFREEZE).contains(&k)
        };
        if acts(self.game[i].index) {
            return true;
        }
        if self.front.as_ref().is_some_and(|f| acts(f[i].index)) {
            return true;
        }
        if self.tele.as_ref().is_some_and(|t| {
            matches!(
                t[i].kind,
                tile::TELEIN
                    | tile::TELEINEVIL
                    | tile::TELECHECKINEVIL
                    | tile::TELECHECK
                    | tile::TELECHECKIN
            )
        }) {
            return true;
        }
        if self.speedup.as_ref().is_some_and(|s| s[i].force > 0)
            || self.switch.as_ref().is_some_and(|s| s[i].kind != 0)
            || self.tune.as_ref().is_some_and(|t| t[i].kind != 0)
            || self.door_exists(i)
        {
            return true;
        }
        self.tile_exists_next(i)
    }

    /// `TileExistsNext`: a stopper beside `i` that faces it (with the
    /// loader's quirks: index 0 counts as having no left neighbour, and a
    /// two-way stopper above or below always counts).
    fn tile_exists_next(&self, i: usize) -> bool {
        let n = self.cells() as i64;
        let (w, i) = (i64::from(self.width), i as i64);
        let left = if i - 1 > 0 { i - 1 } else { i } as usize;
        let right = if i + 1 < n { i + 1 } else { i } as usize;
        let below = if i + w < n { i + w } else { i } as usize;
        let above = if i - w > 0 { i - w } else { i } as usize;
        let faces = |l: &[Tile]| {
            (l[right].index == tile::STOP && l[right].flags == ROTATION_270)
                || (l[left].index == tile::STOP && l[left].flags == ROTATION_90)
                || (l[below].index == tile::STOP && l[below].flags == ROTATION_0)
                || (l[above].index == tile::STOP && l[above].flags == ROTATION_180)
                || matches!(l[right].index, tile::STOPA | tile::STOPS)
                || matches!(l[left].index, tile::STOPA | tile::STOPS)
                || matches!(l[below].index, tile::STOPA | tile::STOPS)
                || matches!(l[above].index, tile::STOPA | tile::STOPS)
        };
        faces(&self.game) || self.front.as_deref().is_some_and(faces)
    }

    /// The game layer's index at map index `i`.
    pub fn game_index(&self, i: usize) -> u8 {
        self.game[i].index
    }

    /// The flags of the game, front and switch layers' tiles at map index
    /// `i` (an entity's rotation).
    pub fn flags_at(&self, i: usize) -> [u8; 3] {
        let front = self.front.as_ref().map_or(0, |f| f[i].flags);
        let switch = self.switch.as_ref().map_or(0, |s| s[i].flags);
        [self.game[i].flags, front, switch]
    }

    /// The front layer's index at map index `i` (0 without one).
    pub fn front_index(&self, i: usize) -> u8 {
        self.front.as_ref().map_or(0, |f| f[i].index)
    }

    /// The switch layer's (kind, number, delay) at map index `i`: the
    /// number only if it is a switch that exists.
    pub fn switch_at(&self, i: usize) -> (u8, u8, u8) {
        match self.switch.as_ref().map(|s| s[i]) {
            Some(t) if t.kind > 0 => {
                let number = if t.number > 0 && i32::from(t.number) <= self.highest_switch {
                    t.number
                } else {
                    0
                };
                (t.kind, number, t.delay)
            }
            _ => (0, 0, 0),
        }
    }

    /// The teleporter outs (`TILE_TELEOUT`) of number `number + 1`, row
    /// by row.
    pub fn tele_outs(&self, number: usize) -> &[Vec2] {
        self.tele_outs.get(number).map_or(&[], Vec::as_slice)
    }

    /// The checkpoint teleporter outs (`TILE_TELECHECKOUT`) of number
    /// `number + 1`, row by row.
    pub fn tele_check_outs(&self, number: usize) -> &[Vec2] {
        self.tele_check_outs.get(number).map_or(&[], Vec::as_slice)
    }

    /// The tele layer's (kind, number) at map index `i`.
    pub fn tele_at(&self, i: usize) -> (u8, u8) {
        self.tele
            .as_ref()
            .map_or((0, 0), |t| (t[i].kind, t[i].number))
    }

    /// Whether the map has a tune layer (any zone but 0 to be in).
    pub fn has_tune_zones(&self) -> bool {
        self.tune.is_some()
    }

    /// The tune zone at `p`, by its map index (0: the global tuning; at
    /// once without a tune layer).
    // The test inline, the lookup out of line: asked a character a tick,
    // mostly on maps without a tune layer.
    #[inline(always)]
    pub fn tune_zone_at(&self, p: Vec2) -> u8 {
        match self.tune.as_ref() {
            Some(t) => self.tune_zone_in(t, p),
            None => 0,
        }
    }

    /// [`Collision::tune_zone_at`] on a map with a tune layer `t`.
    fn tune_zone_in(&self, t: &[TuneTile], p: Vec2) -> u8 {
        match self.map_index(p) {
            Some(i) if t[i].kind != 0 => t[i].number,
            _ => 0,
        }
    }

    /// The speedup at map index `i`, if it has force.
    pub fn speedup_at(&self, i: usize) -> Option<SpeedupTile> {
        self.speedup.as_ref().map(|s| s[i]).filter(|s| s.force > 0)
    }

    /// Whether any of `points` is on a death tile of the game or the
    /// front layer (`HandleSkippableTiles`' test); at once false on a map
    /// without one.
    // The test inline, the lookups out of line: asked a character a tick,
    // mostly on maps without death tiles.
    #[inline(always)]
    pub fn any_deadly(&self, points: &[Vec2]) -> bool {
        self.any_death && self.any_point_deadly(points)
    }

    /// [`Collision::any_deadly`] on a map with death tiles.
    fn any_point_deadly(&self, points: &[Vec2]) -> bool {
        points.iter().any(|&p| self.collision_at(p) == TILE_DEATH)
            || points
                .iter()
                .any(|&p| self.front_collision_at(p) == TILE_DEATH)
    }

    /// `GetFrontCollisionAt`: death or nolaser of the front layer at a
    /// float position, rounded.
    #[inline]
    pub fn front_collision_at(&self, p: Vec2) -> u8 {
        let Some(front) = self.front.as_ref() else {
            return 0;
        };
        let (x, y) = (round_to_int(p.x), round_to_int(p.y));
        let nx = (x / 32).clamp(0, self.width - 1);
        let ny = (y / 32).clamp(0, self.height - 1);
        match front[(ny * self.width + nx) as usize].index {
            k @ (TILE_DEATH | TILE_NOLASER) => k,
            _ => 0,
        }
    }

    /// `GetMoveRestrictions` without doors: the [`cantmove`]
    /// bits of the stoppers at `pos` and `distance` from it in the four
    /// directions (the centre's tile may be given).
    pub fn move_restrictions(&self, pos: Vec2, distance: f32, center: Option<usize>) -> i32 {
        const DIRS: [(f32, f32); 5] =
            [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
        if !self.any_stops {
            return 0;
        }
        let mut r = 0;
        for (d, (dx, dy)) in DIRS.into_iter().enumerate() {
            let at = pos + Vec2::new(dx, dy) * distance;
            let i = match (d, center) {
                (0, Some(c)) => c,
                _ => self.pure_index(at),
            };
            let stops = i32::from(self.stops[i]);
            r |= match d {
                0 => stops & 0xf,
                _ => stops >> 4 & SIDE_BITS[d],
            };
        }
        r
    }

    /// `IntersectLineTeleHook`: the hook's walk from `from` to `to`. The
    /// first point that is a hook teleporter, a solid tile it may not
    /// pass, or a hook blocker ends it: (what, where, teleporter number).
    pub fn intersect_hook(&self, from: Vec2, to: Vec2, old_tele_hook: bool) -> (u8, Vec2, u8) {
        let end = trunc_to_int(from.distance(to) + 1.0);
        let (ox, oy) = through_offset(from, to);
        for i in 0..=end {
            let p = from.mix(to, i as f32 / end as f32);
            let (ix, iy) = (round_to_int(p.x), round_to_int(p.y));
            let index = self.pure_index(p);
            let (kind, number) = self.tele_at(index);
            let hook_tele = if old_tele_hook {
                kind == tile::TELEIN
            } else {
                kind == tile::TELEINHOOK
            };
            if hook_tele && number != 0 {
                return (tile::TELEINHOOK, p, number);
            }
            let mut hit = 0;
            if self.is_solid(ix, iy) {
                if !self.is_through(ix, iy, ox, oy, from, to) {
                    hit = self.tile(ix, iy);
                }
            } else if self.is_hook_blocker(ix, iy, from, to) {
                hit = TILE_NOHOOK;
            }
            if hit != 0 {
                return (hit, p, 0);
            }
        }
        (0, to, 0)
    }

    /// `IsThrough`: a hook passes this solid point.
    fn is_through(&self, x: i32, y: i32, ox: i32, oy: i32, p0: Vec2, p1: Vec2) -> bool {
        let i = self.pure_index(Vec2::new(x as f32, y as f32));
        if let Some(f) = &self.front {
            let t = f[i];
            if matches!(t.index, tile::THROUGH_ALL | tile::THROUGH_CUT) {
                return true;
            }
            if t.index == tile::THROUGH_DIR && dir_matches(t.flags, p0, p1, false) {
                return true;
            }
        }
        let o = self.pure_index(Vec2::new((x + ox) as f32, (y + oy) as f32));
        self.game[o].index == tile::THROUGH
            || self
                .front
                .as_ref()
                .is_some_and(|f| f[o].index == tile::THROUGH)
    }

    /// `IsHookBlocker`: a hook stops at this air point.
    fn is_hook_blocker(&self, x: i32, y: i32, p0: Vec2, p1: Vec2) -> bool {
        let i = self.pure_index(Vec2::new(x as f32, y as f32));
        let g = self.game[i];
        if g.index == tile::THROUGH_ALL
            || self
                .front
                .as_ref()
                .is_some_and(|f| f[i].index == tile::THROUGH_ALL)
        {
            return true;
        }
        if g.index == tile::THROUGH_DIR && dir_matches(g.flags, p0, p1, true) {
            return true;
        }
        self.front.as_ref().is_some_and(|f| {
            f[i].index == tile::THROUGH_DIR && dir_matches(f[i].flags, p0, p1, true)
        })
    }

    /// Width in tiles.
    pub fn width(&self) -> i32 {
        self.width
    }

    /// Height in tiles.
    pub fn height(&self) -> i32 {
        self.height
    }

    /// The collision kind of the tile at world position `(x, y)`, clamped
    /// into the map (`GetTile`: integer division by 32, towards zero).
    #[inline]
    pub fn tile(&self, x: i32, y: i32) -> u8 {
        let nx = (x / 32).clamp(0, self.width - 1);
        let ny = (y / 32).clamp(0, self.height - 1);
        // In range: both are clamped into the grid.
        self.kinds[(ny * self.width + nx) as usize]
    }

    /// The game layer's index of the tile at column `x`, row `y` (in
    /// range: the caller walks the grid).
    pub fn index(&self, x: i32, y: i32) -> u8 {
        self.indices[(y * self.width + x) as usize]
    }

    /// The game layer's indices, then the front layer's.
    pub fn game_and_front_indices(&self) -> impl Iterator<Item = u8> + '_ {
        let front = self.front.iter().flatten().map(|t| t.index);
        self.indices.iter().copied().chain(front)
    }

    /// Whether any tile of the game layer has `index`.
    pub fn has_index(&self, index: u8) -> bool {
        self.indices.contains(&index)
    }

    /// Whether the tile at `(x, y)` stops movement: solid or nohook.
    #[inline]
    pub fn is_solid(&self, x: i32, y: i32) -> bool {
        matches!(self.tile(x, y), TILE_SOLID | TILE_NOHOOK)
    }

    /// [`Collision::is_solid`] at a float position, each coordinate
    /// rounded half away from zero (`CheckPoint`).
    #[inline]
    pub fn check_point(&self, p: Vec2) -> bool {
        self.is_solid(round_to_int(p.x), round_to_int(p.y))
    }

    /// The collision kind at a float position, rounded as
    /// [`Collision::check_point`] does (`GetCollisionAt`).
    #[inline]
    pub fn collision_at(&self, p: Vec2) -> u8 {
        self.tile(round_to_int(p.x), round_to_int(p.y))
    }

    /// Whether any corner of the box of `size` centred on `p` is solid
    /// (`TestBox`), corners in DDNet's order.
    pub fn test_box(&self, p: Vec2, size: Vec2) -> bool {
        let h = size * 0.5;
        self.any_corner_solid(self.sides(p, [-h.x, h.x, -h.y, h.y]))
    }

    /// The left and right columns and the top and bottom rows `TestBox`
    /// tests for a box centred on `p`, `half` its half width negated and
    /// not, then its half height so (`x + -h` is `x - h`, bit for bit).
    #[inline]
    fn sides(&self, p: Vec2, half: [f32; 4]) -> [i32; 4] {
        let (w, h) = (self.width - 1, self.height - 1);
        round_tiles([p.x, p.x, p.y, p.y], half, [w, w, h, h])
    }

    /// `TestBox` of the box between columns `left` and `right` and rows
    /// `top` and `bottom`: whether any of its four corner tiles is solid
    /// or nohook.
    // Always: out of line, its call costs as much as its lookup.
    #[inline(always)]
    fn any_corner_solid(&self, [left, right, top, bottom]: [i32; 4]) -> bool {
        let (dx, dy) = (
            right.wrapping_sub(left) as u32,
            bottom.wrapping_sub(top) as u32,
        );
        if dx <= 1 && dy <= 1 {
            // The corners beside the top left one that the box reaches.
            let reached = (1 + 2 * dx) * (1 + 4 * dy);
            return u32::from(self.corners[(top * self.width + left) as usize]) & reached != 0;
        }
        [(left, top), (right, top), (left, bottom), (right, bottom)]
            .into_iter()
            .any(|(x, y)| {
                matches!(
                    self.kinds[(y * self.width + x) as usize],
                    TILE_SOLID | TILE_NOHOOK
                )
            })
    }

    /// Whether a character of `size` at `p` stands on something: a point
    /// 5 units below either bottom corner is solid (`IsOnGround`).
    pub fn is_on_ground(&self, p: Vec2, size: f32) -> bool {
        let h = size / 2.0;
        let below = p.y + h + 5.0;
        // Both points rounded at once (`p.x + -h` is `p.x - h` and `below
        // + 0` rounds as `below`, bit for bit): the two tiles of one row.
        let (w, n) = (self.width - 1, self.height - 1);
        let [right, left, row, _] =
            round_tiles([p.x, p.x, below, below], [h, -h, 0.0, 0.0], [w, w, n, n]);
        self.any_corner_solid([left, right, row, row])
    }

    /// Moves the box of `size` at `pos` by `vel` in as many steps as the
    /// velocity's length (plus one), each step stopped on the axis that
    /// collides, that axis' velocity multiplied by `-elasticity` (both
    /// when only the diagonal collides) (`MoveBox`). Returns whether the
    /// box was stopped while falling with a positive vertical elasticity
    /// (DDNet 20's `pGrounded`; characters move with elasticity 0).
    // Inlined: a caller writes the velocity's two halves apart, and a
    // call reads it whole from memory, a load that waits for both
    // stores to retire.
    #[inline(always)]
    pub fn move_box(&self, pos: &mut Vec2, vel: &mut Vec2, size: Vec2, elasticity: Vec2) -> bool {
        let (mut p, mut v) = (*pos, *vel);
        let mut grounded = false;
        // At most one step a world unit (`(int)Distance`: none past i32's
        // range). A move shorter than a unit (a third of them: standing,
        // creeping) is one step, which the squares tell without the root.
        let (moves, max) = match v.compare_length(1.0, 1.0) {
            Some(Ordering::Less) => (v.compare_length(1.0, 0.00001) == Some(Ordering::Greater), 0),
            _ => {
                let distance = v.length();
                (distance > 0.00001, trunc_to_int(distance))
            }
        };
        if moves {
            let fraction = 1.0 / (max + 1) as f32;
            let ex = elasticity.x.clamp(-1.0, 1.0);
            let ey = elasticity.y.clamp(-1.0, 1.0);
            // Nothing solid anywhere the box can reach: no step tests it.
            // The steps stay between `p` and `p + v`, but for a rounding
            // of at most 1/32 of a unit a step below a million units, so
            // the corners within half the move, that slack and half the
            // box of the move's middle on either axis; rounded, and the
            // middle truncated, two units more.
            // A move of one step (a third of them: standing, creeping)
            // tests once whatever this says, for less than asking.
            // `v` is finite here (its length is); a side of the box may not
            // be, and must then fail the bound, not be dropped by a `max`.
            // A box turned inside out reaches as far as turned back.
            let clear = (1..4096).contains(&max) && {
                let slack = (max + 1) as f32 / 16.0 + 2.0;
                let larger = |a: f32, b: f32| if a > b { a } else { b };
                let (sx, sy) = (size.x.abs(), size.y.abs());
                let reach = larger(v.x.abs(), v.y.abs()) * 0.5 + larger(sx, sy) * 0.5 + slack;
                sx + sy < 1.0e5 && self.clear_within(p + v * 0.5, reach)
            };
            // A step's three `TestBox`es share their columns and rows
            // with each other and with the last step's: each is worked
            // out once (`TestBox` is a function of them alone). `at_p` are
            // those of `p`, once known.
            let h = size * 0.5;
            let half = [-h.x, h.x, -h.y, h.y];
            let mut at_p = None;
            // `0..=max` as a half-open range (a simpler loop); no float
            // truncates to i32::MAX, so the sum does not overflow.
            for _ in 0..max + 1 {
                if v == Vec2::default() {
                    break;
                }
                let mut next = p + v * fraction;
                if next == p {
                    break;
                }
                if clear {
                    p = next;
                    continue;
                }
                let mut at_next = self.sides(next, half);
                if self.any_corner_solid(at_next) {
                    let [pl, pr, pt, pb] = *at_p.get_or_insert_with(|| self.sides(p, half));
                    let [nl, nr, nt, nb] = at_next;
                    let (mut kept_x, mut kept_y) = (false, false);
                    let mut hits = 0;
                    if self.any_corner_solid([pl, pr, nt, nb]) {
                        grounded |= ey > 0.0 && v.y > 0.0;
                        next.y = p.y;
                        kept_y = true;
                        v.y *= -ey;
                        hits += 1;
                    }
                    if self.any_corner_solid([nl, nr, pt, pb]) {
                        next.x = p.x;
                        kept_x = true;
                        v.x *= -ex;
                        hits += 1;
                    }
                    if hits == 0 {
                        grounded |= ey > 0.0 && v.y > 0.0;
                        next = p;
                        (kept_x, kept_y) = (true, true);
                        v.y *= -ey;
                        v.x *= -ex;
                    }
                    if kept_x {
                        (at_next[0], at_next[1]) = (pl, pr);
                    }
                    if kept_y {
                        (at_next[2], at_next[3]) = (pt, pb);
                    }
                }
                at_p = Some(at_next);
                p = next;
            }
        }
        *pos = p;
        *vel = v;
        grounded
    }

    /// Walks from `from` to `to` in steps of at most a world unit and
    /// returns the first point that is solid, the point before it, and its
    /// collision kind; `None` when the line is clear (`IntersectLine`).
    pub fn intersect_line(&self, from: Vec2, to: Vec2) -> Option<(Vec2, Vec2, u8)> {
        let end = trunc_to_int(from.distance(to) + 1.0);
        let mut last = from;
        for i in 0..=end {
            let p = from.mix(to, i as f32 / end as f32);
            let (ix, iy) = (round_to_int(p.x), round_to_int(p.y));
            if self.is_solid(ix, iy) {
                return Some((p, last, self.tile(ix, iy)));
            }
            last = p;
        }
        None
    }

    /// Whether something that stops a laser lies on the way from `from`
    /// to `to`, tested every unit up to the end, the end itself not:
    /// solid, nohook or nolaser in the game layer, nolaser in the front
    /// layer (`IntersectNoLaser`).
    pub fn intersect_no_laser(&self, from: Vec2, to: Vec2) -> bool {
        self.walk_before(from, to, |i, _, _| {
            matches!(self.game[i].index, TILE_SOLID | TILE_NOHOOK | TILE_NOLASER)
                || self.front_index(i) == TILE_NOLASER
        })
    }

    /// [`Collision::intersect_no_laser`] for nolaser tiles only, of either
    /// layer (`IntersectNoLaserNW`, 20.1's `IntersectNoLaserNoWalls`).
    pub fn intersect_nolaser_only(&self, from: Vec2, to: Vec2) -> bool {
        self.walk_before(from, to, |i, x, y| {
            self.tile(x, y) == TILE_NOLASER || self.front_index(i) == TILE_NOLASER
        })
    }

    /// The first of `ceil(distance)` points from `from` towards `to`, a
    /// unit apart, for which `stops(tile index, x, y)` holds at the point
    /// rounded.
    fn walk_before(&self, from: Vec2, to: Vec2, stops: impl Fn(usize, i32, i32) -> bool) -> bool {
        let d = from.distance(to);
        (0..d.ceil() as i32).any(|i| {
            let p = from.mix(to, i as f32 / d);
            let (x, y) = (round_to_int(p.x), round_to_int(p.y));
            let i =
                (x / 32).clamp(0, self.width - 1) + (y / 32).clamp(0, self.height - 1) * self.width;
            stops(i as usize, x, y)
        })
    }

    /// The speed a mover tile (`TILE_CP`, four times for `TILE_CP_F`) of
    /// the game layer at `(x, y)` gives the turret or dragger on it, by
    /// its rotation (`MoverSpeed`); `None` off a mover.
    pub fn mover_speed(&self, x: i32, y: i32) -> Option<Vec2> {
        let nx = (x / 32).clamp(0, self.width - 1);
        let ny = (y / 32).clamp(0, self.height - 1);
        let t = self.game[(ny * self.width + nx) as usize];
        if t.index != tile::CP && t.index != tile::CP_F {
            return None;
        }
        let speed = match t.flags {
            ROTATION_0 => Vec2::new(0.0, -4.0),
            ROTATION_90 => Vec2::new(4.0, 0.0),
            ROTATION_180 => Vec2::new(0.0, 4.0),
            ROTATION_270 => Vec2::new(-4.0, 0.0),
            _ => Vec2::default(),
        };
        Some(if t.index == tile::CP_F {
            speed * 4.0
        } else {
            speed
        })
    }

    /// Moves a point by `vel`, or, when it would end in a solid tile,
    /// bounces it instead: each axis whose move alone collides has its
    /// velocity multiplied by `-elasticity`, both when neither alone does
    /// (`MovePoint`). Returns the bounces counted.
    pub fn move_point(&self, pos: &mut Vec2, vel: &mut Vec2, elasticity: f32) -> u32 {
        let (p, v) = (*pos, *vel);
        if !self.check_point(p + v) {
            *pos = p + v;
            return 0;
        }
        let mut bounces = 0;
        if self.check_point(Vec2::new(p.x + v.x, p.y)) {
            vel.x *= -elasticity;
            bounces += 1;
        }
        if self.check_point(Vec2::new(p.x, p.y + v.y)) {
            vel.y *= -elasticity;
            bounces += 1;
        }
        if bounces == 0 {
            vel.x *= -elasticity;
            vel.y *= -elasticity;
        }
        bounces
    }
}

/// Whether a one-way tile of `flags` lets the line `p0`→`p1` through
/// (`blocks`: whether it blocks it instead; the opposite directions).
fn dir_matches(flags: u8, p0: Vec2, p1: Vec2, blocks: bool) -> bool {
    let (up, right, down, left) = (p0.y > p1.y, p0.x < p1.x, p0.y < p1.y, p0.x > p1.x);
    let (a, b, c, d) = if blocks {
        (down, left, up, right)
    } else {
        (up, right, down, left)
    };
    (flags == ROTATION_0 && a)
        || (flags == ROTATION_90 && b)
        || (flags == ROTATION_180 && c)
        || (flags == ROTATION_270 && d)
}

/// `ThroughOffset`: a tile's width along the line's main direction,
/// pointing back to its start.
fn through_offset(p0: Vec2, p1: Vec2) -> (i32, i32) {
    let (x, y) = (p0.x - p1.x, p0.y - p1.y);
    if x.abs() > y.abs() {
        if x < 0.0 { (-32, 0) } else { (32, 0) }
    } else if y < 0.0 {
        (0, -32)
    } else {
        (0, 32)
    }
}

/// The stopper bits a tile adds in move-restriction direction `d` (0 the
/// tile itself, then right, down, left, up): a stopper stops movement
/// onto it, a one-way one also off it.
fn restriction(d: usize, t: Tile) -> i32 {
    use cantmove::{DOWN, LEFT, RIGHT, UP};
    let flags = t.flags & (XFLIP | YFLIP | ROTATE);
    let raw = match t.index {
        tile::STOP => match flags {
            ROTATION_0 => DOWN,
            ROTATION_90 => LEFT,
            ROTATION_180 => UP,
            ROTATION_270 => RIGHT,
            f if f == YFLIP ^ ROTATION_0 => UP,
            f if f == YFLIP ^ ROTATION_90 => RIGHT,
            f if f == YFLIP ^ ROTATION_180 => DOWN,
            f if f == YFLIP ^ ROTATION_270 => LEFT,
            _ => 0,
        },
        tile::STOPS => match flags {
            f if f == ROTATION_0
                || f == ROTATION_180
                || f == YFLIP ^ ROTATION_0
                || f == YFLIP ^ ROTATION_180 =>
            {
                DOWN | UP
            }
            f if f == ROTATION_90
                || f == ROTATION_270
                || f == YFLIP ^ ROTATION_90
                || f == YFLIP ^ ROTATION_270 =>
            {
                LEFT | RIGHT
            }
            _ => 0,
        },
        tile::STOPA => LEFT | RIGHT | UP | DOWN,
        _ => 0,
    };
    if d == 0 && t.index == tile::STOP {
        return raw;
    }
    raw & SIDE_BITS[d]
}

/// The [`cantmove`] bit a stopper in move-restriction direction `d`
/// gives (none on the tile itself, then right, down, left, up).
const SIDE_BITS: [i32; 5] = [
    0,
    cantmove::RIGHT,
    cantmove::DOWN,
    cantmove::LEFT,
    cantmove::UP,
];

mod doors;
pub(crate) use doors::SIDES;
mod settings;

#[cfg(test)]
mod tests;
