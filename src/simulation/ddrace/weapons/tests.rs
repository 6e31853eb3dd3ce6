//! The weapons module's tests.

use super::*;
use crate::map::tiles::{Tile, TuneTile};
use crate::simulation::Release;
use crate::simulation::physics::core::Core;
use crate::simulation::physics::tuning::Tuning;
use crate::teehistorian::PlayerInput;

/// A 100 by 100 tile map, solid where `solid(column, row)` says.
fn map(solid: impl Fn(i32, i32) -> bool) -> Collision {
    let mut tiles = Vec::new();
    for y in 0..100 {
        for x in 0..100 {
            tiles.push(Tile {
                index: u8::from(solid(x, y)),
                flags: 0,
                skip: 0,
                reserved: 0,
            });
        }
    }
    Collision::new(100, 100, &tiles).expect("a grid")
}

struct Fixture {
    release: Release,
    col: Collision,
    tunings: Tunings,
    cores: Cores,
    chars: Vec<Option<Character>>,
    order: Vec<usize>,
    players: Vec<Option<Player>>,
    effects: crate::simulation::ddrace::effects::Effects,
}

impl Fixture {
    fn new(col: Collision) -> Fixture {
        Fixture::of(col, Release::Ddnet20_1)
    }

    fn of(col: Collision, release: Release) -> Fixture {
        Fixture {
            release,
            col,
            tunings: Tunings::new(release, Tuning::ddrace(release)),
            cores: Cores::new(release),
            chars: vec![None; 8],
            order: Vec::new(),
            players: vec![None; 8],
            effects: crate::simulation::ddrace::effects::Effects::new(true),
        }
    }

    /// A character standing still at `(x, y)`, newest in the list.
    fn add(&mut self, cid: usize, x: f32, y: f32) {
        let pos = Vec2::new(x, y);
        self.cores.slots[cid] = Some(Core::new(cid, pos));
        self.chars[cid] = Some(Character::new(cid, pos, 0, PlayerInput::default()));
        self.order.insert(0, cid);
    }

    fn ctx(&mut self, tick: i32) -> Ctx<'_> {
        Ctx {
            tick,
            tunings: &self.tunings,
            col: &self.col,
            rules: Rules::of(&crate::simulation::ddrace::config::Config::new(
                self.release,
            )),
            cores: &mut self.cores,
            chars: &mut self.chars,
            order: &self.order,
            players: &self.players,
            effects: &mut self.effects,
            effects_tick: tick,
            unknown_zone: Vec::new(),
        }
    }

    fn vel(&self, cid: usize) -> Vec2 {
        self.cores.slots[cid].as_ref().expect("a core").vel
    }
}

#[test]
fn a_grenade_follows_ddnets_curve() {
    // 3 ticks at grenade speed 1000 and curvature 7: t = 3/50*1000 = 60
    // units; x = 100 + 0.6*60, y = 200 + 0.8*60 + 7/10000*60^2.
    let t = Tuning::ddrace(Release::Ddnet20_1);
    let p = calc_pos(
        Vec2::new(100.0, 200.0),
        Vec2::new(0.6, 0.8),
        t.grenade_curvature(),
        t.grenade_speed(),
        3.0 / 50.0,
    );
    assert_eq!(p, Vec2::new(136.0, 250.52));
    // DDRace's gun flies straight at 1400 units a second.
    assert_eq!(t.gun_curvature(), 0.0);
    let g = calc_pos(
        Vec2::new(0.0, 0.0),
        Vec2::new(0.0, -1.0),
        0.0,
        1400.0,
        1.0 / 50.0,
    );
    assert_eq!(g, Vec2::new(0.0, -28.0));
}

#[test]
fn a_grenade_lives_its_lifetime_then_explodes() {
    let mut f = Fixture::new(map(|_, _| false));
    f.add(0, 3000.0, 3000.0);
    // Fired in the early-input phase of tick 11: made at tick 10.
    let mut p = new_projectile(
        weapon::GRENADE,
        0,
        Vec2::new(200.0, 100.0),
        Vec2::new(0.0, 1.0),
        2.0,
        true,
        10,
    );
    assert_eq!(p.life_span, 100);
    let mut ticks = 0;
    for tick in 11..200 {
        f.ctx(tick).tick_projectile(&mut p);
        ticks += 1;
        if p.marked {
            break;
        }
    }
    assert_eq!(ticks, 101, "lives 100 ticks, ends in the 101st");
    assert_eq!(p.life_span, -1);
}

#[test]
fn a_grenade_hitting_a_character_explodes_where_it_meets_it() {
    let mut f = Fixture::new(map(|_, _| false));
    f.add(0, 100.0, 1000.0);
    f.add(1, 330.0, 300.0);
    let mut p = new_projectile(
        weapon::GRENADE,
        0,
        Vec2::new(300.0, 300.0),
        Vec2::new(1.0, 0.0),
        2.0,
        true,
        10,
    );
    // First tick: from (300, 300) to (320, 300.28); the closest point
    // to (330, 300) is the segment's end, 10 units away: full
    // strength 6, force 12 away from it.
    f.ctx(11).tick_projectile(&mut p);
    assert!(p.marked);
    let v = f.vel(1);
    let d = Vec2::new(10.0, -0.28);
    let want = d * (12.0 / d.length());
    assert!(
        (v.x - want.x).abs() < 1e-4 && (v.y - want.y).abs() < 1e-4,
        "{v:?} vs {want:?}"
    );
    assert_eq!(f.vel(0), Vec2::default(), "the owner is far");
}

#[test]
fn an_explosion_pushes_by_distance() {
    let mut f = Fixture::new(map(|_, _| false));
    f.add(0, 600.0, 600.0);
    f.add(1, 300.0, 300.0);
    f.add(2, 200.0, 425.0);
    f.ctx(5).explosion(Vec2::new(200.0, 300.0), 0, false, -1);
    // 100 away: 1 - (100-48)/87 = 0.4022989, times strength 6 =
    // 2.413793, times 2 = 4.827586, straight right.
    assert_eq!(f.vel(1), Vec2::new(4.827_586, 0.0));
    // 125 away: 6 * (1 - 77/87) = 0.69, below 1: nothing.
    assert_eq!(f.vel(2), Vec2::default());
}

/// An explosion pushes with its owner player's tune zone
/// (`CPlayer::m_TuneZone`): zone 1's strength 6, not the global 9; an
/// owner whose view is not modelled is named, with whom it pushed.
#[test]
fn an_explosion_pushes_with_its_owners_tune_zone() {
    let push = |view_zone: Option<u8>| {
        let mut f = tuned_fixture();
        f.tunings
            .global_mut()
            .set_float(b"explosion_strength", 9.0)
            .unwrap();
        let mut owner = Player::new(0, Release::Ddnet20_1);
        owner.view_zone = view_zone;
        f.players[0] = Some(owner);
        f.add(1, 300.0, 300.0);
        let mut ctx = f.ctx(5);
        ctx.explosion(Vec2::new(200.0, 300.0), 0, false, -1);
        let unknown = std::mem::take(&mut ctx.unknown_zone);
        (f.vel(1).x, unknown)
    };
    // 100 away: strength * 0.4022989 * 2.
    assert_eq!(push(Some(1)), (4.827_586, vec![]));
    assert_eq!(push(Some(0)), (7.241_379_7, vec![]));
    // Not modelled: the owner and the character it reached are named.
    assert_eq!(push(None), (7.241_379_7, vec![0, 1]));
}

/// Character 0 at `(from, 300)` fires a shotgun beam at tick 7 along
/// the row at character 1 at `(to, 300)`.
fn shotgun_along_a_row(f: &mut Fixture, from: f32, to: f32) -> Laser {
    f.add(0, from, 300.0);
    f.add(1, to, 300.0);
    let dir = Vec2::new((to - from).signum(), 0.0);
    f.ctx(7)
        .new_laser(Vec2::new(from, 300.0), dir, 800.0, 0, weapon::SHOTGUN)
}

#[test]
fn a_shotgun_pulls_the_hit_character_towards_the_shooter() {
    let mut f = Fixture::new(map(|_, _| false));
    let l = shotgun_along_a_row(&mut f, 100.0, 300.0);
    assert_eq!(f.vel(1), Vec2::new(-10.0, 0.0), "shotgun_strength 10");
    assert_eq!(f.vel(0), Vec2::default(), "not its owner");
    assert_eq!(l.pos, Vec2::new(300.0, 300.0));
    assert_eq!(l.energy, -1.0);
    assert_eq!(l.eval_tick, 7);
}

/// The map of [`map`] with tune zone 1 left of x = 160 (five columns);
/// the global tuning pulls with 15, zone 1 with DDRace's 10.
fn tuned_fixture() -> Fixture {
    let tune = (0..100 * 100)
        .map(|i| match i % 100 < 5 {
            true => TuneTile {
                number: 1,
                kind: 68,
            },
            false => TuneTile::default(),
        })
        .collect();
    let mut f = Fixture::new(map(|_, _| false).with_tune(tune));
    f.tunings
        .global_mut()
        .set_float(b"shotgun_strength", 15.0)
        .unwrap();
    f
}

/// A beam's pull is the tune zone's it was fired in (`CLaser::m_TuneZone`,
/// fixed by its constructor), not the global one nor the target's zone.
#[test]
fn a_shotgun_pulls_with_the_tuning_of_the_zone_it_was_fired_in() {
    let mut f = tuned_fixture();
    let l = shotgun_along_a_row(&mut f, 100.0, 300.0);
    assert_eq!(l.tune_zone, 1);
    assert_eq!(f.vel(1), Vec2::new(-10.0, 0.0), "zone 1's shotgun_strength");
    // Fired outside the zone at a character inside it: the global 15.
    let mut f = tuned_fixture();
    let l = shotgun_along_a_row(&mut f, 300.0, 100.0);
    assert_eq!(l.tune_zone, 0);
    assert_eq!(
        f.vel(1),
        Vec2::new(15.0, 0.0),
        "the global shotgun_strength"
    );
}

/// A shotgun beam bouncing on after its owner (still connected) lost its
/// character, with `sv_hit` on: DDNet 16.4 pulls whoever it meets, 20.1
/// nobody. Found by a campaign (16.4-ctf6-hook-s10: the owner joined the
/// spectators between two bounces).
#[test]
fn a_shotgun_beam_without_its_owners_character_pulls_in_16_4_only() {
    for (release, pulled) in [
        (Release::Ddnet16_4, Vec2::new(-10.0, 0.0)),
        (Release::Ddnet20_1, Vec2::default()),
    ] {
        let mut f = Fixture::of(map(|_, _| false), release);
        f.add(1, 300.0, 300.0);
        f.players[0] = Some(Player::new(0, release));
        let mut l = f.ctx(7).new_laser(
            Vec2::new(100.0, 300.0),
            Vec2::new(0.0, -1.0),
            800.0,
            0,
            weapon::SHOTGUN,
        );
        assert_eq!(f.vel(1), Vec2::default(), "{release:?}: aimed away");
        // Turned towards character 1 for the next bounce.
        (l.pos, l.dir, l.energy) = (Vec2::new(100.0, 300.0), Vec2::new(1.0, 0.0), 800.0);
        f.ctx(15).tick_laser(&mut l);
        assert_eq!(f.vel(1), pulled, "{release:?}");
    }
}

#[test]
fn a_laser_unfreezes_and_bounces_off_walls() {
    // A wall from x = 320 (column 10).
    let mut f = Fixture::new(map(|x, _| x == 10));
    f.add(0, 100.0, 100.0);
    f.add(1, 200.0, 500.0);
    f.chars[1].as_mut().unwrap().freeze(3, 1, false);
    let mut l = f.ctx(7).new_laser(
        Vec2::new(100.0, 100.0),
        Vec2::new(1.0, 0.0),
        800.0,
        0,
        weapon::LASER,
    );
    // It stops before the first point that rounds into the wall and
    // turns back; the way there is taken off its energy.
    assert!(l.pos.x < 319.5 && l.pos.x > 318.5, "{:?}", l.pos);
    assert_eq!(l.dir, Vec2::new(-1.0, 0.0));
    assert_eq!(l.bounces, 1);
    assert_eq!(l.energy, 800.0 - (l.pos.x - 100.0));
    // The next bounce after the bounce delay (150 ms: more than 7.5 ticks).
    let before = l.clone();
    f.ctx(14).tick_laser(&mut l);
    assert_eq!(l, before);
    // Aimed down at character 1 now.
    l.dir = Vec2::new(-0.5, 2.0);
    l.dir = normalize(l.dir);
    l.pos = Vec2::new(300.0, 100.0);
    f.ctx(15).tick_laser(&mut l);
    assert_eq!(l.eval_tick, 15);
    let ch = f.chars[1].as_ref().unwrap();
    assert_eq!(ch.freeze_time, 0, "unfrozen");
    assert_eq!(l.energy, -1.0);
    f.ctx(23).tick_laser(&mut l);
    assert!(l.marked);
}

#[test]
fn the_ninja_dashes_ten_ticks_and_knocks_others_up_once() {
    let mut f = Fixture::new(map(|_, _| false));
    f.add(1, 540.0, 500.0);
    f.add(0, 500.0, 500.0);
    let ch = f.chars[0].as_mut().unwrap();
    ch.give_ninja(100);
    start_dash(ch, Vec2::new(1.0, 0.0), Vec2::new(3.0, 4.5));
    assert_eq!(ch.ninja.current_move_time, 10);
    // |(3, 4.5)| is 5.41; DDNet keeps it in an int.
    assert_eq!(ch.ninja.old_vel_amount, 5);
    // An int in DDNet: 1.5 is 1.
    let mut other = ch.clone();
    start_dash(&mut other, Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.5));
    assert_eq!(other.ninja.old_vel_amount, 1);
    for tick in 101..=110 {
        f.ctx(tick).handle_ninja(0);
        if tick < 110 {
            assert_eq!(f.vel(0), Vec2::default(), "no velocity while dashing");
        }
    }
    // Nine ticks of 50 units (each in 51 steps of 50/51, which does not
    // add up exactly in f32), then the old speed comes back.
    let core = f.cores.slots[0].as_ref().unwrap();
    assert!((core.pos.x - 950.0).abs() < 0.01, "{:?}", core.pos);
    assert_eq!(core.pos.y, 500.0);
    assert_eq!(core.vel, Vec2::new(5.0, 0.0));
    // Character 1 was near where the dash began: hit once.
    assert_eq!(f.vel(1), Vec2::new(0.0, -10.0));
    // Ninja ends after 15 s.
    f.ctx(100 + 751).handle_ninja(0);
    let ch = f.chars[0].as_ref().unwrap();
    assert_ne!(ch.active_weapon, weapon::NINJA);
    assert!(!ch.weapons[weapon::NINJA as usize].got);
}

/// `RemoveNinja` by release: 16.4 ends the dash and the weapon only (its
/// DDNetCharacter keeps showing the activation tick); 20.1 also forgets
/// the activation, its direction and the speed to give back.
#[test]
fn removing_the_ninja_keeps_its_activation_in_16_4_only() {
    let mut f = Fixture::new(map(|_, _| false));
    f.add(0, 500.0, 500.0);
    let ch = f.chars[0].as_mut().unwrap();
    let before = ch.active_weapon;
    ch.give_ninja(100);
    start_dash(ch, Vec2::new(1.0, 0.0), Vec2::new(3.0, 4.5));
    let (mut old, mut new) = (ch.clone(), ch.clone());
    old.remove_ninja(Release::Ddnet16_4);
    new.remove_ninja(Release::Ddnet20_1);
    for (ch, release) in [(&old, "16.4"), (&new, "20.1")] {
        assert_eq!(ch.active_weapon, before, "{release}");
        assert!(!ch.weapons[weapon::NINJA as usize].got, "{release}");
        assert_eq!(ch.ninja.current_move_time, 0, "{release}");
    }
    assert_eq!(old.ninja_activation_tick, 100);
    assert_eq!(old.ninja.activation_dir, Vec2::new(1.0, 0.0));
    assert_eq!(old.ninja.old_vel_amount, 5);
    assert_eq!(new.ninja_activation_tick, 0);
    assert_eq!(new.ninja.activation_dir, Vec2::default());
    assert_eq!(new.ninja.old_vel_amount, 0);
    assert_eq!(new.weapons[weapon::NINJA as usize].ammo, 0);
}
