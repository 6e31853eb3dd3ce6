//! What the DDRace tiles under a character do (`HandleSkippableTiles`,
//! `HandleTiles` and the controller's `HandleCharacterTiles` of
//! `character.cpp` and `ddnet.cpp`): death, speedups, freeze, stoppers,
//! jumps, solo, the race's start, switches ([`super::switches`]) and
//! teleporters.
//!
//! They run after the core's tick, on the position of the end of the
//! last tick (`m_Pos`) and on every tile the core crossed since
//! (`GetMapIndices`), so their effects take hold before this tick's move.

use super::World;
use crate::map::tiles::SpeedupTile;
use crate::simulation::Release;
use crate::simulation::ddrace::character::weapon;
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::cantmove;
use crate::simulation::physics::collision::tile;
use crate::simulation::physics::core::{PHYSICAL_SIZE, clamp_vel, hook};
use crate::simulation::physics::fmath;
use crate::simulation::physics::tuning::Tuning;

/// The old speedup (`TILE_SPEED_BOOST_OLD`), the only kind 16.4 knows.
pub const SPEED_BOOST_OLD: u8 = 28;
/// 20.1's speedup (`TILE_SPEED_BOOST`).
pub const SPEED_BOOST: u8 = 29;

/// What speedup `s` makes of velocity `vel` (`HandleSkippableTiles`),
/// `None` when it does nothing. `restrictions` are the stoppers' bits the
/// last tile walk left (`m_MoveRestrictions`); `tuning` is the
/// character's, for 20.1's speedup without a top speed.
///
/// The old kind compares the tee's angle with the speedup's: angles come
/// from float `atan`/`asin`, the speed from double `pow(x, 2)` and
/// `sqrt`, the projection from float `cos`. 16.4 runs it for every kind;
/// 20.1 only for kind 28, and has a new kind 29 that adds the force along
/// the direction up to the top speed.
pub fn speedup(
    release: Release,
    s: SpeedupTile,
    vel: Vec2,
    restrictions: i32,
    tuning: &Tuning,
) -> Option<Vec2> {
    // `GetSpeedup`: the angle in degrees, times a float pi/180.
    let angle = f32::from(s.angle) * (std::f32::consts::PI / 180.0);
    let dir = Vec2::new(fmath::cosf(angle), fmath::sinf(angle));
    let force = i32::from(s.force);
    let mut max_speed = i32::from(s.max_speed);
    let old = match release {
        Release::Ddnet16_4 => true,
        Release::Ddnet20_1 => match s.kind {
            SPEED_BOOST_OLD => true,
            SPEED_BOOST => false,
            _ => return None,
        },
    };
    let mut temp = vel;
    if !old {
        const SCALE: f32 = 5.0;
        if max_speed == 0 {
            // An unqualified `log` of a float: C's double `log`.
            let curvature = tuning.velramp_curvature();
            let curvature = if curvature < 1.01 { 1.01f32 } else { curvature };
            let ramp_max = (f64::from(tuning.velramp_range())
                / (50.0 * fmath::log(f64::from(curvature)))) as f32;
            let start = tuning.velramp_start() / 50.0;
            let top = if ramp_max < start { start } else { ramp_max };
            max_speed = fmath::trunc_to_int(top * SCALE);
        }
        let along = dir.dot(vel);
        let top = max_speed as f32 / SCALE;
        temp = if along + force as f32 > top {
            temp + dir * (top - along)
        } else {
            temp + dir * force as f32
        };
        return Some(clamp_vel(restrictions, temp));
    }
    if force == 255 && max_speed != 0 {
        return Some(dir * (max_speed / 5) as f32);
    }
    if max_speed > 0 && max_speed < 5 {
        max_speed = 5;
    }
    if max_speed > 0 {
        let speeder = angle_of(dir);
        let tee = angle_of(temp);
        let (x, y) = (f64::from(temp.x), f64::from(temp.y));
        let tee_speed = (x * x + y * y).sqrt() as f32;
        let diff = speeder - tee;
        let left = max_speed as f32 / 5.0 - fmath::cosf(diff) * tee_speed;
        let whole = fmath::trunc_to_int(left).wrapping_abs();
        temp = if whole > force && left > 0.000_000_1 {
            temp + dir * force as f32
        } else if whole > force {
            temp + dir * (-force) as f32
        } else {
            temp + dir * left
        };
    } else {
        temp = temp + dir * force as f32;
    }
    Some(clamp_vel(restrictions, temp))
}

/// Points from `a` to `b` every 4 units (a character's box, 28 wide,
/// misses no tile between two), both ends included; a jump of more than
/// 100 units (a teleporter, a console `move`) only its ends.
fn path(a: Vec2, b: Vec2) -> impl Iterator<Item = Vec2> {
    let d = a.distance(b);
    let steps = if d > 100.0 {
        1
    } else {
        (d / 4.0).ceil() as i32
    };
    (0..=steps).map(move |i| match steps {
        0 => b,
        _ => a.mix(b, i as f32 / steps as f32),
    })
}

/// The old speedup's angle of a vector, in [0, 2pi): minus the `atan` of
/// the slope to the right, the `atan` plus pi to the left (and where x is
/// 0), the quarter turns when x is exactly the threshold.
fn angle_of(v: Vec2) -> f32 {
    const EPS: f32 = 0.000_000_1;
    let quarter = fmath::asinf(1.0);
    let a = if v.x > EPS {
        -fmath::atanf(v.y / v.x)
    } else if v.x < EPS {
        fmath::atanf(v.y / v.x) + 2.0 * quarter
    } else if v.y > EPS {
        quarter
    } else {
        fmath::asinf(-1.0)
    };
    if a < 0.0 { 4.0 * quarter + a } else { a }
}

impl World {
    /// `DDRacePostCoreTick`'s tiles for `cid`: the skippable ones at
    /// `m_Pos`, then every tile on the way from the last tick's core
    /// position. Returns false when the character died.
    pub(super) fn character_tiles(&mut self, cid: usize) -> bool {
        let Some(ch) = self.chars[cid].as_ref() else {
            return false;
        };
        let (pos, prev) = (ch.pos, ch.prev_pos);
        let current = self.col.map_index(pos);
        if !self.skippable_tiles(cid, pos, current) {
            return false;
        }
        // From where the core stood before the last move to where it
        // ended (`m_Pos`), not to the core: a console `move` or a teleport
        // since has not moved `m_Pos` yet.
        let indices = self.col.map_indices(prev, pos);
        if indices.is_empty() {
            return self.handle_tiles(cid, current);
        }
        for i in indices {
            if !self.handle_tiles(cid, Some(i)) {
                return false;
            }
        }
        true
    }

    /// `HandleSkippableTiles`: death tiles and leaving the map kill;
    /// speedups push.
    fn skippable_tiles(&mut self, cid: usize, pos: Vec2, index: Option<usize>) -> bool {
        let r = PHYSICAL_SIZE / 3.0;
        let corners = [
            Vec2::new(pos.x + r, pos.y - r),
            Vec2::new(pos.x + r, pos.y + r),
            Vec2::new(pos.x - r, pos.y - r),
            Vec2::new(pos.x - r, pos.y + r),
        ];
        let deadly = self.col.any_deadly(&corners);
        let super_ = self.cores.slots[cid].as_ref().is_some_and(|c| c.super_);
        if deadly && !super_ {
            self.die_in_world(cid);
            return false;
        }
        if self.clipped(pos) {
            self.die_in_world(cid);
            return false;
        }
        let Some(i) = index else {
            return true;
        };
        // 16.4's `IsSpeedup` answers with the index, so the map's first
        // tile never speeds anybody up there.
        if self.release == Release::Ddnet16_4 && i == 0 {
            return true;
        }
        let Some(s) = self.col.speedup_at(i) else {
            return true;
        };
        let restrictions = self.chars[cid].as_ref().map_or(0, |c| c.move_restrictions);
        let release = self.release;
        if let Some(core) = self.cores.slots[cid].as_mut()
            && let Some(vel) = speedup(
                release,
                s,
                core.vel,
                restrictions,
                self.core_tuning.get(cid),
            )
        {
            core.vel = vel;
        }
        true
    }

    /// `HandleTiles` (with the controller's start, finish and solo) on map
    /// index `index`. The tile itself is [`World::handle_tile`]'s: on a
    /// map without DDRace tiles every call is for no tile.
    #[inline]
    pub(super) fn handle_tiles(&mut self, cid: usize, index: Option<usize>) -> bool {
        let pos = match self.chars[cid].as_ref() {
            Some(ch) => ch.pos,
            None => return false,
        };
        let cores = &self.cores;
        let restrictions = self
            .col
            .move_restrictions_doors(pos, 18.0, index, |n| cores.door_closed(cid, n));
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.move_restrictions = restrictions;
        }
        let Some(i) = index else {
            if let Some(ch) = self.chars[cid].as_mut() {
                ch.last_refill_jumps = false;
                ch.last_penalty = false;
                ch.last_bonus = false;
            }
            return true;
        };
        self.handle_tile(cid, pos, restrictions, i)
    }

    /// [`World::handle_tiles`] on tile `i`, the character at `pos` with
    /// its `restrictions` there.
    #[inline(never)]
    fn handle_tile(&mut self, cid: usize, pos: Vec2, restrictions: i32, i: usize) -> bool {
        let tick = self.tick;
        let freeze_delay = self.config.sv_freeze_delay;
        let release = self.release;
        // The checkpoint a check teleporter sends back to.
        let (tkind, tnum) = self.col.tele_at(i);
        if tkind == tile::TELECHECK
            && tnum != 0
            && let Some(ch) = self.chars[cid].as_mut()
        {
            ch.tele_checkpoint = i32::from(tnum);
        }
        let (t, f) = (self.col.game_index(i), self.col.front_index(i));
        let on = |k: u8| t == k || f == k;

        // The controller: start line (4 corners too), solo parts.
        let r = PHYSICAL_SIZE / 3.0;
        let corner_start = [(r, -r), (r, r), (-r, -r), (-r, r)]
            .iter()
            .any(|&(dx, dy)| {
                let c = self.col.pure_index(Vec2::new(pos.x + dx, pos.y + dy));
                self.col.game_index(c) == tile::START || self.col.front_index(c) == tile::START
            });
        // Both lines read the race as it was before either.
        let race_before = self.chars[cid].as_ref().map_or(0, |c| c.ddrace_state);
        if (on(tile::START) || corner_start) && !self.start_line(cid) {
            return false;
        }
        let corner_finish = [(r, -r), (r, r), (-r, -r), (-r, r)]
            .iter()
            .any(|&(dx, dy)| {
                let c = self.col.pure_index(Vec2::new(pos.x + dx, pos.y + dy));
                self.col.game_index(c) == tile::FINISH || self.col.front_index(c) == tile::FINISH
            });
        if on(tile::FINISH) || corner_finish {
            self.finish_line(cid, race_before);
        }
        if on(tile::SOLO_ENABLE) && !self.cores.teams.solo[cid] {
            self.set_solo(cid, true);
        } else if on(tile::SOLO_DISABLE) && self.cores.teams.solo[cid] {
            self.set_solo(cid, false);
        }

        let (Some(ch), Some(core)) = (self.chars[cid].as_mut(), self.cores.slots[cid].as_mut())
        else {
            return false;
        };
        // Freeze, deep freeze, live freeze.
        if on(tile::FREEZE) && !core.super_ && !ch.deep_frozen {
            ch.freeze_at(freeze_delay, tick, false, release);
        } else if on(tile::UNFREEZE) && !ch.deep_frozen {
            ch.unfreeze();
        }
        if on(tile::DFREEZE) && !core.super_ && !ch.deep_frozen {
            ch.deep_frozen = true;
        } else if on(tile::DUNFREEZE) && !core.super_ && ch.deep_frozen {
            ch.deep_frozen = false;
        }
        if on(tile::LFREEZE) && !core.super_ {
            ch.live_frozen = true;
        } else if on(tile::LUNFREEZE) && !core.super_ {
            ch.live_frozen = false;
        }
        if on(tile::EHOOK_ENABLE) {
            core.endless_hook = true;
        } else if on(tile::EHOOK_DISABLE) {
            core.endless_hook = false;
        }
        if on(tile::HIT_DISABLE) {
            ch.hit_disabled = [true; weapon::COUNT];
        } else if on(tile::HIT_ENABLE) {
            ch.hit_disabled = [false; weapon::COUNT];
        }
        if on(tile::NPC_DISABLE) {
            core.collision_disabled = true;
        } else if on(tile::NPC_ENABLE) {
            core.collision_disabled = false;
        }
        if on(tile::NPH_DISABLE) {
            core.hook_hit_disabled = true;
        } else if on(tile::NPH_ENABLE) {
            core.hook_hit_disabled = false;
        }
        if on(tile::UNLIMITED_JUMPS_ENABLE) {
            core.endless_jump = true;
        } else if on(tile::UNLIMITED_JUMPS_DISABLE) {
            core.endless_jump = false;
        }
        if on(tile::WALLJUMP) && core.vel.y > 0.0 && core.colliding != 0 && core.left_wall {
            core.left_wall = false;
            core.jumped_total = if core.jumps >= 2 { core.jumps - 2 } else { 0 };
            core.jumped = 1;
        }
        if on(tile::JETPACK_ENABLE) {
            ch.jetpack = true;
        } else if on(tile::JETPACK_DISABLE) {
            ch.jetpack = false;
        }
        if on(tile::REFILL_JUMPS) && !ch.last_refill_jumps {
            core.jumped_total = 0;
            core.jumped = 0;
            ch.last_refill_jumps = true;
        }
        if !on(tile::REFILL_JUMPS) {
            ch.last_refill_jumps = false;
        }
        // Stoppers.
        if core.vel.y > 0.0 && restrictions & cantmove::DOWN != 0 {
            core.jumped = 0;
            core.jumped_total = 0;
        }
        core.vel = clamp_vel(restrictions, core.vel);

        self.switch_tiles(cid, i);

        // Teleporters.
        let n = usize::from(tnum.max(1) - 1);
        let is_in = tkind == tile::TELEIN && tnum != 0;
        let is_evil = tkind == tile::TELEINEVIL && tnum != 0;
        if is_in && !self.col.tele_outs(n).is_empty()
            || is_evil && !self.col.tele_outs(n).is_empty()
        {
            if self.cores.slots[cid].as_ref().is_some_and(|c| c.super_) {
                return true;
            }
            let outs = self.col.tele_outs(n).to_vec();
            let Some(out) = self.random_out(cid, &outs) else {
                return true;
            };
            self.teleport(cid, out, is_evil);
            return true;
        }
        // 16.4 asks for a number on the check teleporter, 20.1 does not.
        let numbered = release == Release::Ddnet20_1 || tnum != 0;
        if (tkind == tile::TELECHECKINEVIL || tkind == tile::TELECHECKIN) && numbered {
            self.check_teleport(cid, tkind == tile::TELECHECKINEVIL);
        }
        true
    }

    /// A check teleporter: to an out of the last checkpoint passed that
    /// has outs (or of an earlier one), else to a spawn point as a
    /// spawning player would get it. The evil one also stops the
    /// character and makes every hook on it let go.
    fn check_teleport(&mut self, cid: usize, evil: bool) {
        let Some(checkpoint) = self.chars[cid].as_ref().map(|c| c.tele_checkpoint) else {
            return;
        };
        if self.cores.slots[cid].as_ref().is_some_and(|c| c.super_) {
            return;
        }
        let mut to = None;
        for k in (0..checkpoint.clamp(0, 256)).rev() {
            let outs = self.col.tele_check_outs(k as usize);
            if !outs.is_empty() {
                let outs = outs.to_vec();
                to = self.random_out(cid, &outs);
                break;
            }
        }
        if to.is_none() {
            to = self.spawn_position(cid);
        }
        let Some(out) = to else {
            return;
        };
        self.teleport(cid, out, evil);
    }

    /// A teleporter's effect: the core to `out`, its hook reset unless
    /// `sv_teleport_hold_hook`; an evil one also stops it and makes every
    /// hook on it let go.
    fn teleport(&mut self, cid: usize, out: Vec2, evil: bool) {
        let hold = self.config.sv_teleport_hold_hook != 0;
        if let Some(core) = self.cores.slots[cid].as_mut() {
            core.pos = out;
            if evil {
                core.vel = Vec2::default();
            }
            if !hold {
                core.hooked_player = -1;
                core.hook_state = hook::RETRACTED;
                core.hook_pos = core.pos;
            }
        }
        if evil && !hold {
            self.release_hooked(cid);
        }
    }

    /// One of `outs`: the world's random generator chooses among several.
    fn random_out(&mut self, cid: usize, outs: &[Vec2]) -> Option<Vec2> {
        if outs.is_empty() {
            return None;
        }
        let i = self.cores.random_or_0(cid, outs.len());
        Some(outs[i])
    }

    /// `SetSolo`.
    pub(super) fn set_solo(&mut self, cid: usize, solo: bool) {
        self.cores.teams.solo[cid] = solo;
        if let Some(core) = self.cores.slots[cid].as_mut() {
            core.solo = solo;
        }
    }

    /// `ReleaseHooked`: every hook holding `cid` lets go but a super
    /// character's. The hook stays where it was (16.4 and 20.1 leave
    /// `m_HookPos` alone here, unlike `ResetHook`), and a retracted hook
    /// does not move, so the snapshot keeps it there.
    pub(super) fn release_hooked(&mut self, cid: usize) {
        for core in self.cores.slots.iter_mut().flatten() {
            if core.hooked_player == cid as i32 && !core.super_ {
                core.hooked_player = -1;
                core.hook_state = hook::RETRACTED;
            }
        }
    }

    /// What this tick met of the map's features the model lacks
    /// ([`Watch`](crate::simulation::coverage::Watch)): each character's
    /// first meeting in its life is named (a tile under its box on the
    /// way from `before`, its position before the tick; an entity that
    /// reaches it; a spawn point the model does not take), and so is a
    /// projectile or laser on a weapon teleporter, for every character
    /// not named yet in its life.
    pub(super) fn watch_unmodelled(&mut self, before: &[Option<Vec2>]) {
        let watch = std::sync::Arc::clone(&self.watch);
        for cid in self.order.clone() {
            let (Some(ch), Some(core)) = (self.chars[cid].as_ref(), self.cores.slots[cid].as_ref())
            else {
                continue;
            };
            let life = ch.spawn_tick;
            if self.watched[cid] == Some(life) {
                continue;
            }
            let now = core.pos;
            let from = before.get(cid).copied().flatten().unwrap_or(now);
            let spawned = (life == self.tick).then(|| watch.spawn()).flatten();
            let met = spawned.or_else(|| path(from, now).find_map(|p| watch.met(p)));
            if let Some(feature) = met {
                self.watched[cid] = Some(life);
                self.unmodelled(cid, feature);
            }
        }
        if !watch.has_weapon_teleporters() {
            return;
        }
        let on_lasers = self
            .lasers
            .iter()
            .find_map(|l| path(l.from, l.pos).find_map(|p| watch.weapon_teleporter(p)));
        let on_projectiles = || {
            self.projectiles.iter().find_map(|p| {
                let time = (self.tick - p.start_tick) as f32 / 50.0;
                watch.weapon_teleporter(p.pos_at(&self.tunings, time))
            })
        };
        // A teleported shot may hit anybody.
        if let Some(feature) = on_lasers.or_else(on_projectiles) {
            for cid in self.order.clone() {
                let life = self.chars[cid].as_ref().map(|c| c.spawn_tick);
                if life.is_some() && self.watched[cid] != life {
                    self.watched[cid] = life;
                    self.unmodelled(cid, feature);
                }
            }
        }
    }

    /// `HandleTuneLayer`: the zone the character stands in.
    pub(super) fn tune_zone_of(&mut self, cid: usize) -> u8 {
        let Some(pos) = self.chars[cid].as_ref().map(|c| c.pos) else {
            return 0;
        };
        self.col.tune_zone_at(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::{TeleTile, Tile};
    use crate::simulation::ddrace::character::Character;
    use crate::simulation::ddrace::config::Config;
    use crate::simulation::physics::collision::Collision;
    use crate::simulation::physics::core::Core;
    use crate::simulation::physics::tuning::Tunings;
    use crate::teehistorian::PlayerInput;

    fn old(force: u8, max_speed: u8, angle: i16) -> SpeedupTile {
        SpeedupTile {
            force,
            max_speed,
            kind: SPEED_BOOST_OLD,
            reserved: 0,
            angle,
        }
    }

    fn run(release: Release, s: SpeedupTile, vel: Vec2, restrictions: i32) -> Vec2 {
        let tuning = Tuning::ddrace(release);
        speedup(release, s, Vec2::new(vel.x, vel.y), restrictions, &tuning).expect("acts")
    }

    #[test]
    fn an_old_speedup_without_top_speed_adds_its_force() {
        // Gold Mine's: force 5 at 180 degrees. 180 * (pi/180) is the float
        // pi, whose cos is -1 and whose sin is -8.742278e-8 (pi's float
        // falls short of pi by that much).
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let vel = run(v, old(5, 0, 180), Vec2::new(2.5, 0.5), 0);
            assert_eq!(vel, Vec2::new(-2.5, 0.5 - 5.0 * 8.742278e-8));
        }
        // At rest, at 90 degrees (down): the float pi/2 has cos -4.371139e-8.
        let vel = run(Release::Ddnet16_4, old(3, 0, 90), Vec2::new(0.0, 0.0), 0);
        assert_eq!(vel, Vec2::new(-4.371139e-8 * 3.0, 3.0));
        // A stopper that forbids moving left keeps x at 0.
        let vel = run(
            Release::Ddnet16_4,
            old(5, 0, 180),
            Vec2::new(0.0, 0.0),
            cantmove::LEFT,
        );
        assert_eq!(vel.x, 0.0);
    }

    #[test]
    fn an_old_speedup_with_top_speed_tops_up() {
        let v = Release::Ddnet16_4;
        // Top speed 50/5 = 10 units a tick, force 2, to the right.
        // Standing (vel (0, 0.5) after gravity): the tee's angle is
        // atan(+inf) + pi = 3pi/2, the speed 0.5, cos(0 - 3pi/2) is about
        // 0, so 10 are left, more than the force: the force is added.
        assert_eq!(
            run(v, old(2, 50, 0), Vec2::new(0.0, 0.5), 0),
            Vec2::new(2.0, 0.5)
        );
        // At 9 along the direction, 10 - cos(0) * 9 = 1 is left: added.
        assert_eq!(
            run(v, old(2, 50, 0), Vec2::new(9.0, 0.0), 0),
            Vec2::new(10.0, 0.0)
        );
        // Against it at 3: the angle is pi, 10 + 3 = 13 left: the force.
        assert_eq!(
            run(v, old(2, 50, 0), Vec2::new(-3.0, 0.0), 0),
            Vec2::new(-1.0, 0.0)
        );
        // Faster than the top speed along it: 10 - 14 = -4, more than the
        // force in size and negative: the force backwards.
        assert_eq!(
            run(v, old(2, 50, 0), Vec2::new(14.0, 0.0), 0),
            Vec2::new(12.0, 0.0)
        );
        // A top speed under 5 counts as 5 (1 unit a tick).
        assert_eq!(
            run(v, old(3, 2, 0), Vec2::new(0.25, 0.0), 0),
            Vec2::new(1.0, 0.0)
        );
        // Force 255 sets the velocity to the top speed's whole fifth.
        assert_eq!(
            run(v, old(255, 52, 0), Vec2::new(-7.0, 3.0), 0),
            Vec2::new(10.0, 0.0)
        );
    }

    #[test]
    fn the_new_speedup_projects_onto_its_direction() {
        let v = Release::Ddnet20_1;
        let new = |force, max_speed| SpeedupTile {
            kind: SPEED_BOOST,
            ..old(force, max_speed, 0)
        };
        // Top 10: from 8, 8 + 3 passes it, so up to 10; from 2, the force.
        assert_eq!(
            run(v, new(3, 50), Vec2::new(8.0, 1.0), 0),
            Vec2::new(10.0, 1.0)
        );
        assert_eq!(
            run(v, new(3, 50), Vec2::new(2.0, 1.0), 0),
            Vec2::new(5.0, 1.0)
        );
        // No top speed: the ramp's, 2000 / (50 * ln 1.4) = 118.88 (more
        // than 550 / 50), times 5 and truncated: 594, so 118.8.
        let vel = run(v, new(30, 0), Vec2::new(100.0, 0.0), 0);
        assert_eq!(vel, Vec2::new(594.0 / 5.0, 0.0));
        // 16.4 knows one kind: kind 29 runs the old rules there.
        assert_eq!(
            run(Release::Ddnet16_4, new(3, 50), Vec2::new(8.0, 0.0), 0),
            Vec2::new(10.0, 0.0)
        );
        // 20.1 leaves other kinds alone.
        let other = SpeedupTile {
            kind: 1,
            ..old(3, 0, 0)
        };
        let tuning = Tuning::ddrace(v);
        assert_eq!(speedup(v, other, Vec2::new(1.0, 0.0), 0, &tuning), None);
    }

    /// A 20 by 10 map with a floor on row 8, a spawn at tile (2, 7), and
    /// on row 5: checkpoints 1 (x 3) and 3 (x 4), check-outs 1 (x 10) and
    /// 2 (x 12), a check teleporter (x 6, number 1) and an evil one (x 7).
    fn world(release: Release) -> World {
        world_with_check_in(release, 1)
    }

    /// [`world`], its check teleporter numbered `number`.
    fn world_with_check_in(release: Release, number: u8) -> World {
        let (w, h) = (20, 10);
        let mut tiles = vec![Tile::default(); w * h];
        for t in &mut tiles[8 * w..9 * w] {
            t.index = 1;
        }
        tiles[7 * w + 2].index = 192;
        let mut tele = vec![TeleTile::default(); w * h];
        for (x, kind, number) in [
            (3, tile::TELECHECK, 1),
            (4, tile::TELECHECK, 3),
            (10, tile::TELECHECKOUT, 1),
            (12, tile::TELECHECKOUT, 2),
            (6, tile::TELECHECKIN, number),
            (7, tile::TELECHECKINEVIL, 1),
        ] {
            tele[5 * w + x] = TeleTile { number, kind };
        }
        let col = Collision::new(w as i32, h as i32, &tiles)
            .expect("a grid")
            .with_tele(tele);
        let tunings = Tunings::new(release, Tuning::ddrace(release));
        let mut world = World::new(release, col, Config::new(release), tunings, 0);
        let pos = Vec2::new(200.0, 176.0);
        let mut core = Core::new(0, pos);
        core.vel = Vec2::new(3.0, -2.0);
        world.put_core(0, core);
        world.chars[0] = Some(Character::new(0, pos, 0, PlayerInput::default()));
        world.order.insert(0, 0);
        world
    }

    fn at(w: &World) -> (Vec2, Vec2) {
        let c = w.cores.slots[0].as_ref().expect("a core");
        (c.pos, c.vel)
    }

    #[test]
    fn a_check_teleporter_without_a_checkpoint_sends_to_the_spawn() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            assert!(w.handle_tiles(0, Some(5 * 20 + 6)));
            // The spawn's centre (2*32+16, 7*32+16); the velocity stays.
            assert_eq!(at(&w), (Vec2::new(80.0, 240.0), Vec2::new(3.0, -2.0)));
        }
    }

    #[test]
    fn a_check_teleporter_sends_to_the_latest_checkpoint_with_outs() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            // Checkpoint 1, then 3 (which has no outs: 2 is the next below).
            w.handle_tiles(0, Some(5 * 20 + 3));
            assert_eq!(w.chars[0].as_ref().map(|c| c.tele_checkpoint), Some(1));
            w.handle_tiles(0, Some(5 * 20 + 4));
            assert_eq!(w.chars[0].as_ref().map(|c| c.tele_checkpoint), Some(3));
            w.handle_tiles(0, Some(5 * 20 + 6));
            assert_eq!(at(&w), (Vec2::new(400.0, 176.0), Vec2::new(3.0, -2.0)));
            // The evil one also stops the tee.
            w.handle_tiles(0, Some(5 * 20 + 7));
            assert_eq!(at(&w), (Vec2::new(400.0, 176.0), Vec2::new(0.0, 0.0)));
        }
    }

    #[test]
    fn an_evil_teleporter_releases_the_hooks_on_the_tee_where_they_were() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v);
            // Tees 1 and 2 hold tee 0 by their hooks; tee 2 is super.
            for (cid, super_) in [(1, false), (2, true)] {
                let mut core = Core::new(cid, Vec2::new(300.0, 176.0));
                core.hook_state = hook::GRABBED;
                core.hooked_player = 0;
                core.hook_pos = Vec2::new(200.0, 176.0);
                core.super_ = super_;
                w.put_core(cid, core);
            }
            w.handle_tiles(0, Some(5 * 20 + 7));
            let hook = |cid: usize| {
                let c = w.cores.slots[cid].as_ref().expect("a core");
                (c.hook_state, c.hooked_player, c.hook_pos)
            };
            // `ReleaseHooked` leaves the hook where it was (DDNet's demo
            // shows it there until the hook is used again).
            let was = Vec2::new(200.0, 176.0);
            assert_eq!(hook(1), (hook::RETRACTED, -1, was));
            assert_eq!(hook(2), (hook::GRABBED, 0, was));
        }
    }

    #[test]
    fn an_unnumbered_check_teleporter_acts_in_20_1_only() {
        for (v, moved) in [(Release::Ddnet16_4, false), (Release::Ddnet20_1, true)] {
            let mut w = world_with_check_in(v, 0);
            let i = 5 * 20 + 6;
            w.handle_tiles(0, Some(i));
            assert_eq!(at(&w).0 != Vec2::new(200.0, 176.0), moved);
        }
    }
}
