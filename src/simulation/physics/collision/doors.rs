//! The map's doors (`ENTITY_DOOR`, `CDoor`, `src/game/server/entities/
//! door.cpp`) as collision keeps them (`CCollision::m_pDoor`): at map
//! load every door lays an all-way stopper of its switch number on the
//! tiles of its laser, and a character meets those stoppers while its
//! team's switch of that number is on (`GetMoveRestrictions` with
//! `IsSwitchActiveCb`). Only a map with a switch layer has the grid; a
//! door in the game or front layer has number 0.

use super::{Collision, ROTATION_0, Tile, restriction, tile};
use crate::simulation::physics::{Vec2, fmath};

/// Game, front and switch layer indices from here on are entities.
const ENTITY_OFFSET: u8 = 255 - 16 * 4;
/// `ENTITY_DOOR`.
const DOOR: u8 = 49;

/// The eight tiles around a door or a light, in `aSides`' order (a
/// quarter pi of rotation apart).
pub(crate) const SIDES: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];
/// `ENTITY_LASER_SHORT` to `ENTITY_LASER_LONG`: beside a door, its
/// direction and length.
const LASER_SHORT: u8 = 19;
const LASER_LONG: u8 = 21;

/// A door's stopper: an all-way one.
const DOOR_TILE: Tile = Tile {
    index: tile::STOPA,
    flags: ROTATION_0,
    skip: 0,
    reserved: 0,
};

impl Collision {
    /// Lays every door of the map on a fresh grid, as `OnEntity` meets
    /// them (row by row, on each tile the game layer's, the front
    /// layer's, then the switch layer's; a later door's tile takes the
    /// place of an earlier one's). Nothing without a switch layer.
    pub(super) fn lay_doors(&mut self) {
        let Some(switch) = self.switch.as_ref() else {
            self.doors = Vec::new();
            return;
        };
        let mut doors = vec![None; self.cells()];
        for y in 0..self.height {
            for x in 0..self.width {
                let i = (y * self.width + x) as usize;
                let layers = [
                    (self.game[i].index, 0, Layer::Game),
                    (self.front_index(i), 0, Layer::Front),
                    (switch[i].kind, switch[i].number, Layer::Switch),
                ];
                for (index, number, layer) in layers {
                    if index.checked_sub(ENTITY_OFFSET) == Some(DOOR) {
                        self.lay_door(&mut doors, x, y, layer, number);
                    }
                }
            }
        }
        self.doors = doors;
    }

    /// The door at tile (`x`, `y`) of `layer`: one laser for each of the
    /// eight tiles around it (in `aSides`' order) that holds a laser
    /// length, a quarter pi of rotation apart (`CDoor::ResetCollision`).
    fn lay_door(&self, doors: &mut [Option<u8>], x: i32, y: i32, layer: Layer, number: u8) {
        let pos = Vec2::new(x as f32 * 32.0 + 16.0, y as f32 * 32.0 + 16.0);
        for (k, (dx, dy)) in SIDES.into_iter().enumerate() {
            let Some(side) = self.entity(x + dx, y + dy, layer) else {
                continue;
            };
            if !(LASER_SHORT..=LASER_LONG).contains(&side) {
                continue;
            }
            // `pi / 4 * i` in float, its float sine and cosine.
            let rotation = std::f32::consts::PI / 4.0 * k as f32;
            let dir = Vec2::new(fmath::sinf(rotation), fmath::cosf(rotation));
            let length = 32 * 3 + 32 * i32::from(side - LASER_SHORT) * 3;
            // No door where the game layer is a wall (or death, nolaser)
            // or the front layer death or nolaser.
            let (px, py) = (pos.x as i32, pos.y as i32);
            if self.tile(px, py) != 0 || self.front_tile(px, py) != 0 {
                continue;
            }
            for i in 0..length - 1 {
                let at = pos + dir * i as f32;
                if self.check_point(at) {
                    break;
                }
                doors[self.pure_index(at)] = Some(number);
            }
        }
    }

    /// `CCollision::Entity`: the entity at tile (`x`, `y`) of `layer`,
    /// none outside the map or below the entities.
    fn entity(&self, x: i32, y: i32, layer: Layer) -> Option<u8> {
        if !(0..self.width).contains(&x) || !(0..self.height).contains(&y) {
            return None;
        }
        let i = (y * self.width + x) as usize;
        let index = match layer {
            Layer::Game => self.game[i].index,
            Layer::Front => self.front_index(i),
            Layer::Switch => self.switch.as_ref().map_or(0, |s| s[i].kind),
        };
        index.checked_sub(ENTITY_OFFSET)
    }

    /// `GetFrontTile`: the front layer's death or nolaser at `(x, y)`.
    fn front_tile(&self, x: i32, y: i32) -> u8 {
        let nx = (x / 32).clamp(0, self.width - 1);
        let ny = (y / 32).clamp(0, self.height - 1);
        match self.front_index((ny * self.width + nx) as usize) {
            k @ (super::TILE_DEATH | super::TILE_NOLASER) => k,
            _ => 0,
        }
    }

    /// The highest switch number of the switch layer (0 without one).
    pub fn highest_switch(&self) -> i32 {
        self.highest_switch
    }

    /// The switch number of the door stopper on map index `i`, if any.
    pub fn door_at(&self, i: usize) -> Option<u8> {
        self.doors.get(i).copied().flatten()
    }

    /// Whether the map has a door stopper anywhere.
    pub fn has_doors(&self) -> bool {
        self.doors.iter().any(Option::is_some)
    }

    /// `GetMoveRestrictions` with a switch callback: the stoppers'
    /// [`super::cantmove`] bits ([`Collision::move_restrictions`]) and
    /// those of the doors whose switch `closed` says is on. Inline the
    /// test alone: most maps have neither stoppers nor doors (asked twice
    /// a character a tick, about 26 instructions a call when not inlined).
    #[inline]
    pub fn move_restrictions_doors(
        &self,
        pos: Vec2,
        distance: f32,
        center: Option<usize>,
        closed: impl Fn(u8) -> bool,
    ) -> i32 {
        if !self.any_stops && self.doors.is_empty() {
            return 0;
        }
        self.stops_and_doors(pos, distance, center, closed)
    }

    #[inline(never)]
    fn stops_and_doors(
        &self,
        pos: Vec2,
        distance: f32,
        center: Option<usize>,
        closed: impl Fn(u8) -> bool,
    ) -> i32 {
        let mut r = self.move_restrictions(pos, distance, center);
        if self.doors.is_empty() {
            return r;
        }
        const DIRS: [(f32, f32); 5] =
            [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
        for (d, (dx, dy)) in DIRS.into_iter().enumerate() {
            let i = match (d, center) {
                (0, Some(c)) => c,
                _ => self.pure_index(pos + Vec2::new(dx, dy) * distance),
            };
            if let Some(number) = self.door_at(i)
                && closed(number)
            {
                r |= restriction(d, DOOR_TILE);
            }
        }
        r
    }

    /// `TileExists`' doors: a door stopper on `i` or beside it (with
    /// `TileExistsNext`'s neighbours: index 0 has no left one).
    pub(super) fn door_exists(&self, i: usize) -> bool {
        if self.doors.is_empty() {
            return false;
        }
        let n = self.cells() as i64;
        let (w, i) = (i64::from(self.width), i as i64);
        let left = if i - 1 > 0 { i - 1 } else { i };
        let right = if i + 1 < n { i + 1 } else { i };
        let below = if i + w < n { i + w } else { i };
        let above = if i - w > 0 { i - w } else { i };
        [i, left, right, below, above]
            .into_iter()
            .any(|k| self.door_at(k as usize).is_some())
    }
}

/// The layers a door may stand in.
#[derive(Clone, Copy)]
enum Layer {
    Game,
    Front,
    Switch,
}

#[cfg(test)]
mod tests {
    use super::super::cantmove;
    use super::*;
    use crate::map::tiles::SwitchTile;

    /// A 20 by 12 map, solid at row 10 and column 15; the switch layer's
    /// entities and their numbers at (x, y).
    fn map(switch: &[(i32, i32, u8, u8)]) -> Collision {
        let (w, h) = (20, 12);
        let mut tiles = vec![Tile::default(); w * h];
        for (i, t) in tiles.iter_mut().enumerate() {
            if i / w == 10 || i % w == 15 {
                t.index = super::super::TILE_SOLID;
            }
        }
        let mut layer = vec![SwitchTile::default(); w * h];
        for &(x, y, entity, number) in switch {
            layer[y as usize * w + x as usize] = SwitchTile {
                number,
                kind: ENTITY_OFFSET + entity,
                flags: 0,
                delay: 0,
            };
        }
        Collision::new(w as i32, h as i32, &tiles)
            .expect("a grid")
            .with_switch(layer)
    }

    fn at(x: i32, y: i32) -> usize {
        (y * 20 + x) as usize
    }

    #[test]
    fn a_door_lays_its_number_on_its_laser_up_to_a_wall() {
        // A door at (10, 5) with a medium laser to its right (6 tiles
        // less a unit from its centre: the wall at column 15 stops it)
        // and a short one below (3 tiles less a unit: to row 8).
        let col = map(&[(10, 5, DOOR, 3), (11, 5, 20, 0), (10, 6, 19, 0)]);
        assert_eq!(col.highest_switch(), 3);
        for x in 10..=14 {
            assert_eq!(col.door_at(at(x, 5)), Some(3), "tile {x}");
        }
        assert_eq!(col.door_at(at(15, 5)), None);
        for y in 6..=8 {
            assert_eq!(col.door_at(at(10, y)), Some(3), "row {y}");
        }
        assert_eq!(col.door_at(at(10, 9)), None);
        assert_eq!(col.door_at(at(9, 5)), None);
        assert!(col.has_doors());
        // Beside a door stopper there is a tile to handle.
        assert_eq!(
            col.map_index(Vec2::new(9.0 * 32.0, 5.0 * 32.0)),
            Some(at(9, 5))
        );
        assert_eq!(col.map_index(Vec2::new(3.0 * 32.0, 3.0 * 32.0)), None);
    }

    #[test]
    fn a_door_without_a_laser_length_beside_it_lays_nothing() {
        // A freezing laser (12) is no length; nor is a door on a wall.
        let col = map(&[
            (5, 5, DOOR, 1),
            (6, 5, 12, 0),
            (15, 3, DOOR, 1),
            (16, 3, 19, 0),
        ]);
        assert!(!col.has_doors());
    }

    #[test]
    fn a_door_stops_a_character_only_while_its_switch_is_closed() {
        // A door at (10, 5) with a short laser to its left: tiles 7 to
        // 10 of row 5. 18 units left of x = 350 is tile 10.
        let col = map(&[(10, 5, DOOR, 2), (9, 5, 19, 0)]);
        let p = Vec2::new(350.0, 5.0 * 32.0 + 16.0);
        let closed = col.move_restrictions_doors(p, 18.0, None, |n| n == 2);
        assert_eq!(closed, cantmove::LEFT);
        let open = col.move_restrictions_doors(p, 18.0, None, |_| false);
        assert_eq!(open, 0);
        assert_eq!(col.move_restrictions(p, 18.0, None), 0);
    }
}
