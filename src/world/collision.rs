//! The game layer as DDNet's physics sees it (`CCollision`,
//! `src/game/collision.cpp`): which tile a world position falls in, and
//! moving a box or a point, or casting a line, against the solid ones.
//!
//! Positions outside the map are clamped to its border tiles, so the
//! border goes on for ever. Only solid, death, nohook and nolaser tiles
//! (indices 1 to 4) are kinds here; every other index, entities
//! included, is air. Solid and nohook both stop movement.

use super::{Vec2, round_to_int};
use crate::map::tiles::Tile;

/// A tile a game layer may hold that collision knows.
pub const TILE_SOLID: u8 = 1;
/// Kills a character that touches it.
pub const TILE_DEATH: u8 = 2;
/// Solid, but a hook does not hold to it.
pub const TILE_NOHOOK: u8 = 3;
/// Stops lasers, not characters.
pub const TILE_NOLASER: u8 = 4;

/// A map's game layer, for collision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    width: i32,
    height: i32,
    /// The collision kind of each tile (0 or `TILE_SOLID` to
    /// `TILE_NOLASER`), row by row.
    kinds: Vec<u8>,
    /// Every tile's index as the map has it, row by row (entities
    /// included).
    indices: Vec<u8>,
}

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
        Some(Collision {
            width,
            height,
            kinds,
            indices: tiles.iter().map(|t| t.index).collect(),
        })
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
    ) -> Result<Collision, String> {
        use crate::map::grid::grid;
        use crate::map::items::Physics;
        use crate::map::tiles::Tiles;
        let (item, layer) = map
            .physics_layer(Physics::Game)
            .ok_or("no game layer (a tiles layer with flag 1 in a group)")?;
        match grid(datafile, layer, cap) {
            Ok(Tiles::Tile(tiles)) => {
                Collision::new(layer.width, layer.height, &tiles).ok_or_else(|| {
                    format!("the game layer (item {item}) has fewer tiles than its size")
                })
            }
            Ok(_) => Err(format!("the game layer (item {item}) holds no plain tiles")),
            Err(e) => Err(format!("the game layer (item {item}): {e}")),
        }
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

    /// Whether any tile of the game layer has `index`.
    pub fn has_index(&self, index: u8) -> bool {
        self.indices.contains(&index)
    }

    /// Whether the tile at `(x, y)` stops movement: solid or nohook.
    pub fn is_solid(&self, x: i32, y: i32) -> bool {
        matches!(self.tile(x, y), TILE_SOLID | TILE_NOHOOK)
    }

    /// [`Collision::is_solid`] at a float position, each coordinate
    /// rounded half away from zero (`CheckPoint`).
    pub fn check_point(&self, p: Vec2) -> bool {
        self.is_solid(round_to_int(p.x), round_to_int(p.y))
    }

    /// The collision kind at a float position, rounded as
    /// [`Collision::check_point`] does (`GetCollisionAt`).
    pub fn collision_at(&self, p: Vec2) -> u8 {
        self.tile(round_to_int(p.x), round_to_int(p.y))
    }

    /// Whether any corner of the box of `size` centred on `p` is solid
    /// (`TestBox`), corners in DDNet's order.
    pub fn test_box(&self, p: Vec2, size: Vec2) -> bool {
        let h = size * 0.5;
        [(-h.x, -h.y), (h.x, -h.y), (-h.x, h.y), (h.x, h.y)]
            .into_iter()
            .any(|(dx, dy)| self.check_point(Vec2::new(p.x + dx, p.y + dy)))
    }

    /// Whether a character of `size` at `p` stands on something: a point
    /// 5 units below either bottom corner is solid (`IsOnGround`).
    pub fn is_on_ground(&self, p: Vec2, size: f32) -> bool {
        let below = p.y + size / 2.0 + 5.0;
        self.check_point(Vec2::new(p.x + size / 2.0, below))
            || self.check_point(Vec2::new(p.x - size / 2.0, below))
    }

    /// Moves the box of `size` at `pos` by `vel` in as many steps as the
    /// velocity's length (plus one), each step stopped on the axis that
    /// collides, that axis' velocity multiplied by `-elasticity` (both
    /// when only the diagonal collides) (`MoveBox`). Returns whether the
    /// box was stopped while falling with a positive vertical elasticity
    /// (DDNet 20's `pGrounded`; characters move with elasticity 0).
    pub fn move_box(&self, pos: &mut Vec2, vel: &mut Vec2, size: Vec2, elasticity: Vec2) -> bool {
        let (mut p, mut v) = (*pos, *vel);
        let mut grounded = false;
        let distance = v.length();
        // The float-to-int conversion truncates; at most one step a world
        // unit, and no velocity a character core keeps is near i32's range.
        let max = distance as i32;
        if distance > 0.00001 {
            let fraction = 1.0 / (max + 1) as f32;
            let ex = elasticity.x.clamp(-1.0, 1.0);
            let ey = elasticity.y.clamp(-1.0, 1.0);
            for _ in 0..=max {
                if v == Vec2::default() {
                    break;
                }
                let mut next = p + v * fraction;
                if next == p {
                    break;
                }
                if self.test_box(next, size) {
                    let mut hits = 0;
                    if self.test_box(Vec2::new(p.x, next.y), size) {
                        grounded |= ey > 0.0 && v.y > 0.0;
                        next.y = p.y;
                        v.y *= -ey;
                        hits += 1;
                    }
                    if self.test_box(Vec2::new(next.x, p.y), size) {
                        next.x = p.x;
                        v.x *= -ex;
                        hits += 1;
                    }
                    if hits == 0 {
                        grounded |= ey > 0.0 && v.y > 0.0;
                        next = p;
                        v.y *= -ey;
                        v.x *= -ex;
                    }
                }
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
        let end = (from.distance(to) + 1.0) as i32;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A map from rows of characters: `#` solid, `x` death, `n` nohook,
    /// `l` nolaser, anything else air.
    fn grid(rows: &[&str]) -> Collision {
        let tiles: Vec<Tile> = rows
            .iter()
            .flat_map(|r| r.bytes())
            .map(|c| Tile {
                index: match c {
                    b'#' => TILE_SOLID,
                    b'x' => TILE_DEATH,
                    b'n' => TILE_NOHOOK,
                    b'l' => TILE_NOLASER,
                    b'S' => 192, // a spawn entity: air to collision
                    _ => 0,
                },
                flags: 0,
                skip: 0,
                reserved: 0,
            })
            .collect();
        Collision::new(rows[0].len() as i32, rows.len() as i32, &tiles).expect("a grid")
    }

    #[test]
    fn tiles_are_found_by_integer_division_and_clamped_into_the_map() {
        let c = grid(&["#.x", ".nS", "l.."]);
        assert_eq!(c.tile(0, 0), TILE_SOLID);
        assert_eq!(c.tile(31, 31), TILE_SOLID);
        assert_eq!(c.tile(32, 0), 0, "the next tile");
        assert_eq!(c.tile(64, 0), TILE_DEATH);
        assert_eq!(c.tile(40, 40), TILE_NOHOOK);
        assert_eq!(c.tile(70, 40), 0, "an entity is air");
        // -31 / 32 is 0 (towards zero), then everything left of the map is
        // its first column, everything below its last row.
        assert_eq!(c.tile(-31, 0), TILE_SOLID);
        assert_eq!(c.tile(-100_000, 0), TILE_SOLID);
        assert_eq!(c.tile(0, 100_000), TILE_NOLASER);
        assert_eq!(c.tile(100_000, -5), TILE_DEATH);
        assert!(c.is_solid(40, 40), "nohook stops movement");
        assert!(!c.is_solid(64, 0), "death does not");
        assert!(!c.is_solid(0, 70), "nolaser does not");
    }

    #[test]
    fn points_round_half_away_from_zero() {
        let c = grid(&["..", ".#"]);
        // 31.5 rounds to 32: the solid tile; 31.49 to 31: air.
        assert!(c.check_point(Vec2::new(31.5, 40.0)));
        assert!(!c.check_point(Vec2::new(31.49, 40.0)));
        assert_eq!(round_to_int(-0.5), -1);
        assert_eq!(round_to_int(-0.49), 0);
        assert_eq!(round_to_int(2.5), 3);
        assert_eq!(c.collision_at(Vec2::new(32.0, 32.0)), TILE_SOLID);
    }

    #[test]
    fn a_falling_box_stops_on_the_floor_and_keeps_sliding() {
        // A floor at row 3 (y 96..128); a 28-unit box falls onto it.
        let c = grid(&["....", "....", "....", "####"]);
        let mut pos = Vec2::new(64.0, 60.0);
        let mut vel = Vec2::new(3.0, 30.0);
        let size = Vec2::new(28.0, 28.0);
        let grounded = c.move_box(&mut pos, &mut vel, size, Vec2::default());
        // The bottom edge (y + 14) stays where its corner rounds to air:
        // below 95.5.
        assert!(pos.y + 14.0 < 95.5 && pos.y + 14.0 >= 94.0, "{pos:?}");
        assert_eq!(vel.y, 0.0, "stopped vertically: {vel:?}");
        assert_eq!(vel.x, 3.0, "still sliding: {vel:?}");
        assert!(pos.x > 64.0, "moved sideways: {pos:?}");
        assert!(!grounded, "elasticity 0 never reports grounded");
        assert!(c.is_on_ground(pos, 28.0));
        // With a positive vertical elasticity it bounces and says so.
        let (mut pos, mut vel) = (Vec2::new(64.0, 60.0), Vec2::new(0.0, 30.0));
        assert!(c.move_box(&mut pos, &mut vel, size, Vec2::new(0.5, 0.5)));
        assert!(vel.y < 0.0, "bounced: {vel:?}");
    }

    #[test]
    fn a_box_in_the_open_moves_by_its_whole_velocity() {
        let c = grid(&["......", "......", "......", "......"]);
        let (mut pos, mut vel) = (Vec2::new(50.0, 50.0), Vec2::new(10.25, -3.5));
        c.move_box(&mut pos, &mut vel, Vec2::new(28.0, 28.0), Vec2::default());
        assert_eq!(vel, Vec2::new(10.25, -3.5));
        // In 11 steps of a 11th each: not exactly 60.25 in f32 arithmetic.
        let mut p = Vec2::new(50.0, 50.0);
        let f = 1.0 / 11.0_f32;
        for _ in 0..11 {
            p = p + Vec2::new(10.25, -3.5) * f;
        }
        assert_eq!(pos, p, "stepped as DDNet steps");
        // No velocity: nothing moves, not even by rounding.
        let (mut pos, mut vel) = (Vec2::new(50.0, 50.0), Vec2::default());
        c.move_box(&mut pos, &mut vel, Vec2::new(28.0, 28.0), Vec2::default());
        assert_eq!(pos, Vec2::new(50.0, 50.0));
    }

    #[test]
    fn a_line_stops_at_the_first_solid_point() {
        let c = grid(&["....", "...#", "...."]);
        let hit = c.intersect_line(Vec2::new(10.0, 48.0), Vec2::new(120.0, 48.0));
        let (at, before, kind) = hit.expect("the wall at x 96");
        assert_eq!(kind, TILE_SOLID);
        assert_eq!(round_to_int(at.x), 96, "{at:?}");
        assert!(before.x < at.x && round_to_int(before.x) < 96, "{before:?}");
        assert_eq!(
            c.intersect_line(Vec2::new(10.0, 10.0), Vec2::new(120.0, 10.0)),
            None
        );
    }

    #[test]
    fn a_point_bounces_off_the_axis_that_collides() {
        let c = grid(&["...", "...", "###"]);
        let (mut pos, mut vel) = (Vec2::new(40.0, 60.0), Vec2::new(2.0, 10.0));
        assert_eq!(c.move_point(&mut pos, &mut vel, 0.5), 1);
        assert_eq!((pos, vel), (Vec2::new(40.0, 60.0), Vec2::new(2.0, -5.0)));
        let (mut pos, mut vel) = (Vec2::new(40.0, 40.0), Vec2::new(2.0, 10.0));
        assert_eq!(c.move_point(&mut pos, &mut vel, 0.5), 0);
        assert_eq!(pos, Vec2::new(42.0, 50.0));
    }

    /// Teeworlds' dm1 (in the corpus): a 0.6 map's game layer, read
    /// through the map reader. Its border is solid all round; its middle
    /// is air.
    #[cfg(feature = "zlib")]
    #[test]
    fn a_real_maps_game_layer_is_its_collision() {
        use crate::map::{Datafile, Map};
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/map/teeworlds-data/dm1.map"
        ))
        .expect("dm1.map");
        let datafile = Datafile::decode(&bytes).expect("dm1 decodes");
        let map = Map::new(&datafile);
        let c = Collision::of_map(&datafile, &map, 64 << 20).expect("dm1 has a game layer");
        let (w, h) = (c.width(), c.height());
        assert!(w > 10 && h > 10, "{w}x{h}");
        let solid = (0..w * h)
            .filter(|i| c.is_solid(i % w * 32, i / w * 32))
            .count();
        assert!(
            solid > 0 && solid < (w * h) as usize,
            "{solid} solid tiles of {}",
            w * h
        );
        // Every tile outside the map is a border tile: the same kind as
        // the nearest one inside.
        assert_eq!(c.tile(-1000, -1000), c.tile(0, 0));
        assert_eq!(c.tile(w * 32 + 500, 16), c.tile((w - 1) * 32, 16));
        assert!(
            c.is_solid(0, 0) && c.is_solid((w - 1) * 32, (h - 1) * 32),
            "solid corners"
        );
        assert!(
            Collision::of_map(&datafile, &map, 0).is_err(),
            "a cap of 0 inflates nothing"
        );
    }

    #[test]
    fn a_grid_of_the_wrong_size_is_refused() {
        let tile = Tile {
            index: 1,
            flags: 0,
            skip: 0,
            reserved: 0,
        };
        assert!(Collision::new(2, 2, &[tile; 3]).is_none());
        assert!(Collision::new(0, 0, &[]).is_none());
        assert!(Collision::new(-1, -4, &[tile; 4]).is_none());
        assert!(Collision::new(2, 2, &[tile; 4]).is_some());
    }
}
