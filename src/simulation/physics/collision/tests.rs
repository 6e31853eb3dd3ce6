//! The collision module's tests.

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
                b'f' => tile::FREEZE,
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
    // x86's conversion: NaN and what `int` cannot hold are INT_MIN (a
    // NaN velocity's snapshot in DDNet 20.1's demo says -2147483648).
    assert_eq!(round_to_int(f32::NAN), i32::MIN);
    assert_eq!(round_to_int(3.0e9), i32::MIN);
    assert_eq!(round_to_int(-3.0e9), i32::MIN);
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

/// Past `i32`'s range a step count is x86-64's `(int)`, `i32::MIN`: DDNet's
/// loops (`i <= Max`, `i <= End`) run no step, so nothing is met, not even
/// the wall next to the start (with Rust's saturated count these walked
/// up to 2^31 steps, and `MoveBox`'s `Max + 1` overflowed).
#[test]
fn a_move_or_a_line_past_i32s_range_takes_no_step() {
    let c = grid(&["....", ".##.", "...."]);
    let (mut pos, mut vel) = (Vec2::new(16.0, 16.0), Vec2::new(3.0e9, 0.0));
    c.move_box(&mut pos, &mut vel, Vec2::new(28.0, 28.0), Vec2::default());
    assert_eq!((pos, vel), (Vec2::new(16.0, 16.0), Vec2::new(3.0e9, 0.0)));
    let (from, far) = (Vec2::new(16.0, 48.0), Vec2::new(3.0e9, 48.0));
    assert_eq!(c.intersect_line(from, far), None);
    assert_eq!(c.intersect_hook(from, far, false), (0, far, 0));
    // Within range the wall is met.
    let near = Vec2::new(200.0, 48.0);
    assert!(c.intersect_line(from, near).is_some());
    assert_eq!(c.intersect_hook(from, near, false).0, TILE_SOLID);
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

#[test]
fn a_mover_gives_its_rotations_speed_and_nolaser_stops_a_beam_before_its_end() {
    // Row 1: a mover (TILE_CP) rotated 90 degrees, a fast one (TILE_CP_F)
    // unrotated, a nolaser tile; the rest air.
    let mut tiles = vec![Tile::default(); 9];
    tiles[3] = Tile {
        index: 64,
        flags: 8,
        ..Tile::default()
    };
    tiles[4] = Tile {
        index: 65,
        ..Tile::default()
    };
    tiles[5] = Tile {
        index: 4,
        ..Tile::default()
    };
    let c = Collision::new(3, 3, &tiles).expect("a grid");
    assert_eq!(c.mover_speed(16, 48), Some(Vec2::new(4.0, 0.0)));
    assert_eq!(c.mover_speed(48, 48), Some(Vec2::new(0.0, -16.0)));
    assert_eq!(c.mover_speed(16, 16), None);
    // Towards the nolaser tile: stopped by it, with or without walls;
    // the walk tests every unit before the end, not the end itself.
    assert!(c.intersect_no_laser(Vec2::new(16.0, 80.0), Vec2::new(80.0, 40.0)));
    assert!(c.intersect_nolaser_only(Vec2::new(16.0, 80.0), Vec2::new(80.0, 40.0)));
    assert!(!c.intersect_no_laser(Vec2::new(16.0, 48.0), Vec2::new(64.0, 48.0)));
    assert!(c.intersect_no_laser(Vec2::new(16.0, 48.0), Vec2::new(65.0, 48.0)));
}

#[test]
fn death_is_found_in_the_game_and_the_front_layer_and_nowhere_without_it() {
    let (on, off) = (Vec2::new(80.0, 16.0), Vec2::new(16.0, 48.0));
    let game = grid(&["..x", "..."]);
    assert!(game.any_deadly(&[off, on]));
    assert!(!game.any_deadly(&[off]));
    // Clamped into the map like every tile lookup.
    assert!(game.any_deadly(&[Vec2::new(500.0, -500.0)]));
    let front = |index| {
        let mut t = vec![Tile::default(); 6];
        t[2].index = index;
        t
    };
    let in_front = grid(&["...", "..."]).with_front(front(TILE_DEATH));
    assert!(in_front.any_deadly(&[on]));
    assert!(!in_front.any_deadly(&[off]));
    let none = grid(&["#n.", "l.S"]).with_front(front(TILE_NOLASER));
    assert!(!none.any_deadly(&[on, off, Vec2::new(16.0, 16.0), Vec2::new(-1e9, f32::NAN)]));
}

/// `map_indices` with its shortcuts (no tile on the map, none on the way)
/// finds what the walk finds, on maps with and without DDRace tiles.
#[test]
fn map_indices_find_what_the_walk_finds() {
    fn property(tiles: Vec<u8>, with_freeze: bool, at: (i16, i16, i16, i16)) -> bool {
        let rows: Vec<String> = (0..5)
            .map(|y| {
                (0..6)
                    .map(|x| match tiles.get(y * 6 + x).copied().unwrap_or(0) % 4 {
                        1 => '#',
                        2 if with_freeze => 'f',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let c = grid(&rows);
        // From a little outside the map to a little past it, in eighths.
        let v = |n: i16| f32::from(n % 2000) / 8.0;
        let (prev, pos) = (Vec2::new(v(at.0), v(at.1)), Vec2::new(v(at.2), v(at.3)));
        let d = prev.distance(pos);
        let walked = match d == 0.0 {
            true => {
                let i = c.truncated_index(pos);
                if c.tile_exists(i) {
                    vec![i]
                } else {
                    Vec::new()
                }
            }
            false => c.walk_indices(prev, pos, d),
        };
        c.map_indices(prev, pos) == walked
    }
    quickcheck::QuickCheck::new()
        .tests(2000)
        .quickcheck(property as fn(Vec<u8>, bool, (i16, i16, i16, i16)) -> bool);
}

/// `TestBox` as DDNet writes it: each corner rounded and looked up.
fn plain_test_box(c: &Collision, p: Vec2, size: Vec2) -> bool {
    let h = size * 0.5;
    [(-h.x, -h.y), (h.x, -h.y), (-h.x, h.y), (h.x, h.y)]
        .into_iter()
        .any(|(dx, dy)| c.check_point(Vec2::new(p.x + dx, p.y + dy)))
}

/// `MoveBox` as DDNet writes it: three `TestBox`es a step, no shortcut.
fn plain_move_box(c: &Collision, pos: &mut Vec2, vel: &mut Vec2, size: Vec2, e: Vec2) -> bool {
    let (mut p, mut v, mut grounded) = (*pos, *vel, false);
    let distance = v.length();
    let max = distance as i32;
    if distance > 0.00001 {
        let fraction = 1.0 / (max + 1) as f32;
        let (ex, ey) = (e.x.clamp(-1.0, 1.0), e.y.clamp(-1.0, 1.0));
        for _ in 0..=max {
            if v == Vec2::default() {
                break;
            }
            let mut next = p + v * fraction;
            if next == p {
                break;
            }
            if plain_test_box(c, next, size) {
                let mut hits = 0;
                if plain_test_box(c, Vec2::new(p.x, next.y), size) {
                    grounded |= ey > 0.0 && v.y > 0.0;
                    next.y = p.y;
                    v.y *= -ey;
                    hits += 1;
                }
                if plain_test_box(c, Vec2::new(next.x, p.y), size) {
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
    (*pos, *vel) = (p, v);
    grounded
}

/// `move_box`'s shortcuts (a clear sweep, tiles known free, columns and
/// rows worked out once) end where DDNet's plain steps end, bit for bit,
/// on grids of solid, nohook and air, for boxes narrower and wider than
/// a tile, in and around the map.
#[test]
fn move_box_moves_as_ddnets_plain_steps() {
    fn property(tiles: Vec<u8>, at: (i16, i16), vel: (i16, i16), shape: (u8, u8, u8, u8)) -> bool {
        // From crowded to open (a few solid tiles, or none).
        let (w, h) = (12, 10);
        let solid = [0, 1, 3, 8, 20][usize::from(shape.3 % 5)];
        let rows: Vec<String> = (0..h)
            .map(|y| {
                (0..w)
                    .map(
                        |x| match tiles.get(y * w + x).copied().unwrap_or(255) % 64 {
                            n if n < solid => '#',
                            n if n < solid + solid / 2 => 'n',
                            _ => '.',
                        },
                    )
                    .collect()
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let c = grid(&rows);
        let pick = |of: [f32; 5], n: u8| of[usize::from(n % 5)];
        let size = Vec2::new(
            pick([28.0, 28.0, 10.0, 40.0, 70.0], shape.0),
            pick([28.0, 28.0, 12.0, 36.0, 64.0], shape.0 / 5),
        );
        // Now and then a box turned inside out, or with a NaN side.
        let size = match shape.3 / 5 % 8 {
            1 => size * -1.0,
            2 => Vec2::new(-size.x, size.y),
            3 => Vec2::new(f32::NAN, size.y),
            _ => size,
        };
        let e = Vec2::new(
            pick([0.0, 0.0, 0.5, -0.25, 1.5], shape.1),
            pick([0.0, 0.5, 0.0, 1.0, -2.0], shape.2),
        );
        // From a little outside the map to a little past it, in eighths;
        // up to 128 units a tick, in sixteenths.
        let pos = Vec2::new(
            f32::from(at.0.rem_euclid(3600) - 300) / 8.0,
            f32::from(at.1.rem_euclid(3200) - 300) / 8.0,
        );
        let vel = Vec2::new(
            f32::from(vel.0 % 2048) / 16.0,
            f32::from(vel.1 % 2048) / 16.0,
        );
        let (mut p1, mut v1, mut p2, mut v2) = (pos, vel, pos, vel);
        let g1 = c.move_box(&mut p1, &mut v1, size, e);
        let g2 = plain_move_box(&c, &mut p2, &mut v2, size, e);
        let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
        // `TestBox` and `IsOnGround` alone, also far out and at NaN.
        let far = Vec2::new(f32::from(at.0) * 1.0e3, f32::from(at.1) * 3.0e5);
        let boxes_same = [pos, p1, far, Vec2::new(f32::NAN, pos.y)]
            .into_iter()
            .all(|p| {
                let on_ground = |size: f32| {
                    let below = p.y + size / 2.0 + 5.0;
                    c.check_point(Vec2::new(p.x + size / 2.0, below))
                        || c.check_point(Vec2::new(p.x - size / 2.0, below))
                };
                c.test_box(p, size) == plain_test_box(&c, p, size)
                    && [size.x, size.y, -size.x]
                        .into_iter()
                        .all(|size| c.is_on_ground(p, size) == on_ground(size))
            });
        boxes_same && g1 == g2 && bits(p1) == bits(p2) && bits(v1) == bits(v2)
    }
    quickcheck::QuickCheck::new()
        .tests(20000)
        .quickcheck(property as fn(Vec<u8>, (i16, i16), (i16, i16), (u8, u8, u8, u8)) -> bool);
}
