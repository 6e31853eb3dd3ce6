//! What weapons leave in the world (`src/game/server/entities/projectile.cpp`,
//! `laser.cpp`, and the parts of `character.cpp` and `gamecontext.cpp`
//! they call): gun bullets and grenades as projectiles on a curve,
//! shotgun and laser rifle as lasers that bounce, explosions, and the
//! ninja's dash.
//!
//! Projectiles and lasers each have their own list, newest first (a new
//! entity goes to the head of its type's list), and the world ticks every
//! projectile, then every laser, before pickups and characters. Every
//! position they test against is a character's `m_Pos` (where it stood at
//! the end of the last tick); every push goes to the character's core
//! through `TakeDamage`, which clamps the velocity with the character's
//! move restrictions (none until stoppers are modelled).

use super::character::{Character, weapon};
use super::effects::{Effect, Effects, sound};
use super::player::Player;
use crate::simulation::Release;
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::core::{
    Cores, PHYSICAL_SIZE, clamp_vel, closest_point_on_line, normalize,
};
use crate::simulation::physics::tuning::Tunings;
use serde::Serialize;

/// An explosion's reach (`CreateExplosion`'s radius).
pub const EXPLOSION_RADIUS: f32 = 135.0;
/// Within this distance an explosion pushes with full strength.
pub const EXPLOSION_INNER_RADIUS: f32 = 48.0;
/// How long ninja lasts, in milliseconds (`g_pData`'s ninja duration).
pub const NINJA_DURATION_MS: i32 = 15000;
/// How long a ninja dash lasts, in milliseconds (`m_Movetime`).
pub const NINJA_MOVETIME_MS: i32 = 200;
/// The dash's speed, units per tick (`m_Velocity`).
pub const NINJA_VELOCITY: f32 = 50.0;
/// Ticks a second.
const TICK_SPEED: i32 = 50;

/// The server settings weapons read.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rules {
    /// `sv_hit`: players may hit each other.
    pub hit: bool,
    /// `sv_destroy_bullets_on_death`.
    pub destroy_bullets_on_death: bool,
    /// `sv_destroy_lasers_on_death`.
    pub destroy_lasers_on_death: bool,
    /// `sv_old_laser`.
    pub old_laser: bool,
    /// 20.1's bullets and lasers call `TakeDamage` with no force on whom
    /// they hit (the move restrictions clamp its velocity); 16.4's do not.
    pub hit_clamps: bool,
    /// Whose freeze rule.
    pub release: Release,
    /// `sv_freeze_delay`: seconds a freezing bullet freezes.
    pub freeze_delay: i32,
    /// `sv_shotgun_bullet_sound`: the map's exploding bullets sound.
    pub shotgun_bullet_sound: bool,
}

impl Rules {
    /// The rules `config` sets.
    pub fn of(config: &super::config::Config) -> Rules {
        Rules {
            hit: config.sv_hit != 0,
            destroy_bullets_on_death: config.sv_destroy_bullets_on_death != 0,
            destroy_lasers_on_death: config.sv_destroy_lasers_on_death != 0,
            old_laser: config.sv_old_laser != 0,
            hit_clamps: config.release == Release::Ddnet20_1,
            release: config.release,
            freeze_delay: config.sv_freeze_delay,
            shotgun_bullet_sound: config.sv_shotgun_bullet_sound != 0,
        }
    }
}

/// A gun bullet, a grenade or a map's crazy shotgun bullet
/// (`CProjectile`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Projectile {
    /// `weapon::GUN`, `weapon::GRENADE` or `weapon::SHOTGUN`.
    pub kind: i32,
    /// Who fired it (-1: the world).
    pub owner: i32,
    /// Where it started.
    pub pos: Vec2,
    /// Its direction at the start (unit length).
    pub dir: Vec2,
    /// Ticks left; at -1 it ends.
    pub life_span: i32,
    /// The server tick it was made in.
    pub start_tick: i32,
    /// Explodes where it ends.
    pub explosive: bool,
    /// Freezes whom it meets and lives on (the map's bullets).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub freeze: bool,
    /// Bounces off walls: 1 sideways, 2 up and down (0: never).
    #[serde(skip_serializing_if = "is_zero")]
    pub bouncing: u8,
    /// Made by the switch layer, with its number: it freezes a team
    /// only while that switch (never 0) is on there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch: Option<u8>,
    /// Gone at the end of this world tick.
    pub marked: bool,
    /// Its snapshot id (`None`: the server had none left).
    #[serde(skip)]
    pub snap_id: Option<i32>,
    /// The map layer that made it (`LAYER_GAME` 0, `_FRONT` 1,
    /// `_SWITCH` 4; 0 for a weapon's).
    #[serde(skip)]
    pub layer: u8,
    /// The aim it was fired at, as the input had it (`m_InitDir`; the
    /// direction for the map's bullets).
    #[serde(skip)]
    pub aim: Vec2,
    /// The tune zone where it was made (`m_TuneZone`, fixed by the
    /// constructor; 20.1 snaps it).
    #[serde(skip)]
    pub tune_zone: u8,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

impl Projectile {
    /// Where it is `time` seconds after it started (`CProjectile::GetPos`):
    /// with the curvature and speed of the tune zone it was made in, as
    /// they are now.
    pub fn pos_at(&self, tunings: &Tunings, time: f32) -> Vec2 {
        let t = tunings.zone(self.tune_zone);
        let (curvature, speed) = match self.kind {
            weapon::GRENADE => (t.grenade_curvature(), t.grenade_speed()),
            weapon::SHOTGUN => (t.shotgun_curvature(), t.shotgun_speed()),
            weapon::GUN => (t.gun_curvature(), t.gun_speed()),
            _ => (0.0, 0.0),
        };
        calc_pos(self.pos, self.dir, curvature, speed, time)
    }

    /// A bouncing bullet meets a wall (`CProjectile::Tick`): it starts again
    /// from `before`, the point before the wall, four units back, its
    /// direction turned (a sideways bouncer's x, another's y; what is left of
    /// the other below a millionth is none), and one step on.
    pub fn bounce(&mut self, before: Vec2, tick: i32) {
        self.start_tick = tick;
        self.pos = before + self.dir * -4.0;
        match self.bouncing {
            1 => self.dir.x = -self.dir.x,
            2 => self.dir.y = -self.dir.y,
            _ => {}
        }
        if self.dir.x.abs() < 1e-6 {
            self.dir.x = 0.0;
        }
        if self.dir.y.abs() < 1e-6 {
            self.dir.y = 0.0;
        }
        self.pos = self.pos + self.dir;
    }
}

/// Whom a laser may hit (`CInteractions`), as its owner stood at the
/// last sync.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Interactions {
    /// The owner left the server: nobody is the owner any more.
    pub owner_gone: bool,
    /// The owner's DDRace team.
    pub team: i32,
    /// The owner was solo.
    pub solo: bool,
    /// Hits only its owner.
    pub no_hit_others: bool,
    /// Does not hit its owner.
    pub no_hit_self: bool,
}

/// A laser rifle's beam or a shotgun's (`CLaser`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Laser {
    /// `weapon::LASER` or `weapon::SHOTGUN`.
    pub kind: i32,
    /// Who fired it.
    pub owner: i32,
    /// Its head.
    pub pos: Vec2,
    /// Where the last segment began.
    pub from: Vec2,
    /// Where it goes next (unit length).
    pub dir: Vec2,
    /// The head before the last bounce (`m_PrevPos`).
    pub prev_pos: Vec2,
    /// Reach left.
    pub energy: f32,
    /// Bounces so far.
    pub bounces: i32,
    /// The tick of the last bounce.
    pub eval_tick: i32,
    /// The last bounce went nowhere.
    pub zero_energy_bounce_last_tick: bool,
    /// Whom it may hit.
    pub interactions: Interactions,
    /// Gone at the end of this world tick.
    pub marked: bool,
    /// Its place in the world's laser list (higher: newer), beside the
    /// map's bullets and beams.
    #[serde(skip)]
    pub seq: u64,
    /// Its snapshot id (`None`: the server had none left).
    #[serde(skip)]
    pub snap_id: Option<i32>,
    /// The tune zone where it was made (`m_TuneZone`): its pull and its
    /// bounces' cost, number and delay are that zone's.
    #[serde(skip)]
    pub tune_zone: u8,
}

/// What weapons work on: the world's characters and cores, at a tick.
pub struct Ctx<'a> {
    /// The server tick now (`Server()->Tick()`).
    pub tick: i32,
    /// The tunings: the global one (zone 0) and every tune zone's; a
    /// weapon's entity reads the zone it was made in, an explosion its
    /// owner's.
    pub tunings: &'a Tunings,
    /// The map.
    pub col: &'a Collision,
    /// The settings.
    pub rules: Rules,
    /// Every core.
    pub cores: &'a mut Cores,
    /// Every character, by client id.
    pub chars: &'a mut [Option<Character>],
    /// The characters, newest first.
    pub order: &'a [usize],
    /// Every player slot.
    pub players: &'a [Option<Player>],
    /// The events for the next snapshot.
    pub effects: &'a mut Effects,
    /// That snapshot's tick.
    pub effects_tick: i32,
    /// Explosions whose owner's tune zone is not modelled (its view
    /// follows what it spectates) on a map with tune zones: the owners and
    /// every character within their reach, whose pushes are not judged.
    pub unknown_zone: Vec<usize>,
}

/// `CalcPos`: where a projectile is after `time` seconds.
pub fn calc_pos(pos: Vec2, dir: Vec2, curvature: f32, speed: f32, time: f32) -> Vec2 {
    let t = time * speed;
    Vec2::new(
        pos.x + dir.x * t,
        pos.y + dir.y * t + curvature / 10000.0 * (t * t),
    )
}

impl Ctx<'_> {
    /// An event for the next snapshot.
    fn effect(&mut self, e: Effect) {
        self.effects.push(self.effects_tick, e);
    }

    fn alive(&self, cid: i32) -> Option<usize> {
        let c = usize::try_from(cid).ok()?;
        self.chars.get(c)?.as_ref().map(|_| c)
    }

    fn team(&self, cid: usize) -> i32 {
        self.cores.teams.team.get(cid).copied().unwrap_or(0)
    }

    fn solo(&self, cid: usize) -> bool {
        self.cores.teams.solo.get(cid).copied().unwrap_or(false)
    }

    /// `CCharacter::CanCollide(with)` for the character of `cid`.
    fn can_collide(&self, cid: usize, with: i32) -> bool {
        match usize::try_from(with) {
            Ok(w) if w < self.cores.teams.team.len() => self.cores.teams.can_collide(cid, w),
            // No client: the teams core compares with team 0.
            _ => false,
        }
    }

    /// Whether `owner`'s shots of weapon `w` may hit others: its
    /// character's flag (`m_GrenadeHitDisabled`, ...), or `sv_hit` for a
    /// shot whose owner has no character.
    fn hits_others(&self, owner: Option<usize>, w: i32) -> bool {
        match owner {
            Some(o) => self.chars[o]
                .as_ref()
                .is_some_and(|c| !c.hit_disabled[w as usize]),
            None => self.rules.hit,
        }
    }

    fn char_pos(&self, cid: usize) -> Vec2 {
        self.chars[cid].as_ref().map_or(Vec2::default(), |c| c.pos)
    }

    /// More than 200 tiles outside the map (`GameLayerClipped`).
    fn clipped(&self, p: Vec2) -> bool {
        let (x, y) = (
            crate::simulation::physics::round_to_int(p.x) / 32,
            crate::simulation::physics::round_to_int(p.y) / 32,
        );
        x < -200 || x > self.col.width() + 200 || y < -200 || y > self.col.height() + 200
    }

    /// `IntersectCharacter`: of the characters (in list order) whose
    /// centre comes within `radius` + 28 of the segment, the one whose
    /// closest point is nearest `p0` (the first of equals), and that point.
    pub(super) fn intersect_character(
        &self,
        p0: Vec2,
        p1: Vec2,
        radius: f32,
        not_this: Option<usize>,
        collide_with: i32,
        this_only: Option<usize>,
    ) -> Option<(usize, Vec2)> {
        let mut closest_len = p0.distance(p1) * 100.0;
        let mut found = None;
        for &c in self.order {
            if Some(c) == not_this || this_only.is_some_and(|t| t != c) {
                continue;
            }
            if collide_with != -1 && !self.can_collide(c, collide_with) {
                continue;
            }
            let pos = self.char_pos(c);
            let Some(at) = closest_point_on_line(p0, p1, pos) else {
                continue;
            };
            if pos.distance(at) < PHYSICAL_SIZE + radius {
                let len = p0.distance(at);
                if len < closest_len {
                    closest_len = len;
                    found = Some((c, at));
                }
            }
        }
        found
    }

    /// `TakeDamage`: adds `force` to the velocity, clamped by the move
    /// restrictions of the character's last tile walk (stoppers, doors).
    fn take_damage(&mut self, cid: usize, force: Vec2) {
        let restrictions = self.chars[cid].as_ref().map_or(0, |c| c.move_restrictions);
        if let Some(core) = self.cores.slots[cid].as_mut() {
            core.vel = clamp_vel(restrictions, core.vel + force);
        }
    }

    /// `CreateExplosion`: the event, then every character within reach
    /// pushed away from `pos` by its distance, its eyes in pain.
    pub fn explosion(&mut self, pos: Vec2, owner: i32, no_damage: bool, activated_team: i32) {
        self.effect(Effect::explosion(pos));
        let targets: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&c| self.char_pos(c).distance(pos) < EXPLOSION_RADIUS + PHYSICAL_SIZE)
            .collect();
        let zone = self.owner_zone(owner);
        if zone.is_none() {
            self.unknown_zone.push(owner as usize);
            self.unknown_zone.extend(&targets);
        }
        let strength = self.tunings.zone(zone.unwrap_or(0)).explosion_strength();
        let owner_char = self.alive(owner);
        let hit_enabled = self.hits_others(owner_char, weapon::GRENADE);
        let mut team_mask = vec![true; self.cores.teams.super_team as usize + 1];
        for c in targets {
            let diff = self.char_pos(c) - pos;
            let mut force_dir = Vec2::new(0.0, 1.0);
            let l = diff.length();
            if l != 0.0 {
                force_dir = normalize(diff);
            }
            let l = 1.0
                - ((l - EXPLOSION_INNER_RADIUS) / (EXPLOSION_RADIUS - EXPLOSION_INNER_RADIUS))
                    .clamp(0.0, 1.0);
            let dmg = strength * l;
            if dmg as i32 == 0 {
                continue;
            }
            if !(hit_enabled || no_damage || owner == c as i32) {
                continue;
            }
            if owner != -1 && !self.can_collide(c, owner) {
                continue;
            }
            if owner == -1 && activated_team != -1 && self.team(c) != activated_team {
                continue;
            }
            if !hit_enabled || no_damage {
                let team = self.team(c);
                if team == self.cores.teams.super_team {
                    continue;
                }
                match usize::try_from(team)
                    .ok()
                    .and_then(|t| team_mask.get_mut(t))
                {
                    Some(bit) if *bit => *bit = false,
                    _ => continue,
                }
            }
            self.take_damage(c, force_dir * dmg * 2.0);
            if let Some(ch) = self.chars[c].as_mut() {
                ch.pain(self.tick);
            }
        }
    }

    /// A freezing bullet's freeze: every character within a unit of `at`
    /// (`FindEntities`, its proximity radius added); a switch layer's bullet
    /// only where its switch is on in the character's team.
    fn freeze_near(&mut self, at: Vec2, switch: Option<u8>) {
        for &c in self.order {
            let team = self.cores.teams.team[c];
            let on = match switch {
                None => true,
                Some(n) => n > 0 && self.cores.switchers.is_on(n, team),
            };
            let super_ = self.cores.slots[c].as_ref().is_some_and(|k| k.super_);
            if let Some(ch) = self.chars[c].as_mut()
                && on
                && ch.pos.distance(at) < 1.0 + PHYSICAL_SIZE
            {
                ch.freeze_at(
                    self.rules.freeze_delay,
                    self.tick,
                    super_,
                    self.rules.release,
                );
            }
        }
    }

    /// `CProjectile::GetPos`.
    fn projectile_pos(&self, p: &Projectile, time: f32) -> Vec2 {
        p.pos_at(self.tunings, time)
    }

    /// The tune zone `CreateExplosion` reads for `owner`'s explosion: the
    /// owner player's (`CPlayer::m_TuneZone`, where it last looked from),
    /// the global one without a player; `None` where that is not modelled
    /// and the map has tune zones.
    fn owner_zone(&self, owner: i32) -> Option<u8> {
        let player = usize::try_from(owner)
            .ok()
            .and_then(|o| self.players.get(o)?.as_ref());
        match player.map(|p| p.view_zone) {
            None => Some(0),
            Some(Some(zone)) => Some(zone),
            Some(None) => (!self.col.has_tune_zones()).then_some(0),
        }
    }

    /// `CProjectile::Tick`.
    pub fn tick_projectile(&mut self, p: &mut Projectile) {
        let prev_t = (self.tick - p.start_tick - 1) as f32 / TICK_SPEED as f32;
        let cur_t = (self.tick - p.start_tick) as f32 / TICK_SPEED as f32;
        let prev = self.projectile_pos(p, prev_t);
        let cur = self.projectile_pos(p, cur_t);
        let (collide, mut col_pos, before) = match self.col.intersect_line(prev, cur) {
            Some((at, before, _)) => (true, at, before),
            None => (false, cur, cur),
        };
        let owner_char = self.alive(p.owner);
        let mut target = None;
        // The gun's bullets too go by the grenade's flag.
        let hits_others = self.hits_others(owner_char, weapon::GRENADE);
        if hits_others {
            let radius = if p.freeze { 1.0 } else { 6.0 };
            target = self.intersect_character(prev, col_pos, radius, owner_char, p.owner, None);
            if let Some((_, at)) = target {
                col_pos = at;
            }
        }
        if p.life_span > -1 {
            p.life_span -= 1;
        }
        let weapon_collide =
            owner_char.is_some() && target.is_some_and(|(t, _)| !self.can_collide(t, p.owner));
        if owner_char.is_none()
            && p.owner >= 0
            && (p.kind != weapon::GRENADE || self.rules.destroy_bullets_on_death)
        {
            p.marked = true;
            return;
        }
        let target_hits = target.is_some_and(|(t, _)| match owner_char {
            Some(_) => hits_others,
            None => self.rules.hit || p.owner == -1 || Some(t) == owner_char,
        });
        // `m_SoundImpact`: a grenade's, and the map's bullets' by the setting.
        let impact = match p.kind {
            weapon::GRENADE => Some(sound::GRENADE_EXPLODE),
            _ if p.owner == -1 && self.rules.shotgun_bullet_sound => Some(sound::GRENADE_EXPLODE),
            _ => None,
        };
        if (target_hits || collide || self.clipped(cur)) && !weapon_collide {
            let wall = p.kind == weapon::SHOTGUN && collide;
            if p.explosive && (target.is_none() || !p.freeze || wall) {
                let team = target.map_or(-1, |(t, _)| self.team(t));
                self.explosion(col_pos, p.owner, p.owner == -1, team);
                if let Some(id) = impact {
                    self.effect(Effect::sound(col_pos, id));
                }
            } else if p.freeze {
                self.freeze_near(cur, p.switch);
            } else if let Some((t, _)) = target
                && self.rules.hit_clamps
            {
                self.take_damage(t, Vec2::default());
            }
            // A map's bullet bounces off the wall, or stays; a weapon's ends.
            if collide && p.bouncing != 0 {
                p.bounce(before, self.tick);
            } else if p.kind == weapon::GUN {
                // The bullet's stars, fanned around its way.
                let angle = -p.dir.x.atan2(p.dir.y);
                for e in Effect::damage_ind(cur, angle, 10, self.rules.release) {
                    self.effect(e);
                }
                p.marked = true;
                return;
            } else if !p.freeze {
                p.marked = true;
                return;
            }
        }
        if p.life_span == -1 {
            if p.explosive {
                let team = owner_char.map_or(-1, |o| self.team(o));
                self.explosion(col_pos, p.owner, p.owner == -1, team);
                if let Some(id) = impact {
                    self.effect(Effect::sound(col_pos, id));
                }
            }
            p.marked = true;
        }
        // Weapon teleporters are not on the maps we hold.
    }

    /// `CLaser::SyncInteractState`.
    fn sync_laser(&self, l: &mut Laser) {
        let connected = usize::try_from(l.owner)
            .ok()
            .and_then(|o| self.players.get(o))
            .is_some_and(Option::is_some);
        if !connected {
            l.interactions.owner_gone = true;
            return;
        }
        let owner = l.owner as usize;
        let owner_char = self.alive(l.owner);
        // Without the owner's character: 20.1's `SyncInteractState` sets
        // `NoHitOthers` to `sv_hit` itself; 16.4's `CLaser::HitCharacter`
        // hits others exactly when `sv_hit` is on (a beam fired before its
        // owner joined the spectators still pulls).
        l.interactions.no_hit_others = match (owner_char, self.rules.release) {
            (Some(_), _) => !self.hits_others(owner_char, l.kind),
            (None, Release::Ddnet16_4) => !self.rules.hit,
            (None, Release::Ddnet20_1) => self.rules.hit,
        };
        l.interactions.no_hit_self = self.rules.old_laser || l.bounces == 0;
        l.interactions.team = self.team(owner);
        l.interactions.solo = owner_char.is_some_and(|o| self.solo(o));
    }

    /// `CInteractions::CanHit`.
    fn laser_can_hit(&self, l: &Laser, cid: usize) -> bool {
        let i = l.interactions;
        let is_owner = !i.owner_gone && l.owner == cid as i32;
        if i.team != 0 && self.team(cid) != i.team {
            return false;
        }
        if i.solo && !is_owner {
            return false;
        }
        if i.no_hit_others && !is_owner {
            return false;
        }
        !(i.no_hit_self && is_owner)
    }

    /// `CLaser::HitCharacter`: the first character on the segment is hit
    /// (pulled by a shotgun, unfrozen by a laser) and the beam ends there.
    fn laser_hit(&mut self, l: &mut Laser, from: Vec2, to: Vec2) -> bool {
        self.sync_laser(l);
        let owner_char = self.alive(l.owner);
        let dont_hit_self = self.rules.old_laser || l.bounces == 0;
        let not_this = if dont_hit_self { owner_char } else { None };
        let hit = if self.hits_others(owner_char, l.kind) {
            self.intersect_character(l.pos, to, 0.0, not_this, l.owner, None)
        } else {
            self.intersect_character(l.pos, to, 0.0, not_this, l.owner, owner_char)
        };
        let Some((t, at)) = hit else {
            return false;
        };
        if !self.laser_can_hit(l, t) {
            return false;
        }
        l.from = from;
        l.pos = at;
        l.energy = -1.0;
        if l.kind == weapon::SHOTGUN {
            let strength = self.tunings.zone(l.tune_zone).shotgun_strength();
            let hit_pos = self.cores.slots[t].as_ref().map_or(at, |c| c.pos);
            let old_laser_pull = if self.rules.old_laser {
                owner_char.and_then(|o| self.cores.slots[o].as_ref().map(|c| c.pos))
            } else {
                Some(l.prev_pos)
            };
            match old_laser_pull {
                Some(towards) if towards != hit_pos => {
                    self.take_damage(t, normalize(towards - hit_pos) * strength);
                }
                Some(_) => {
                    // The "shotgun bug": a pull from the target's own centre.
                    if let Some(core) = self.cores.slots[t].as_mut() {
                        core.vel = Vec2::new(-2147483648.0, -2147483648.0);
                    }
                }
                // The old laser without its owner: the restrictions only.
                None => self.take_damage(t, Vec2::default()),
            }
        } else if l.kind == weapon::LASER
            && let Some(c) = self.chars[t].as_mut()
        {
            c.unfreeze();
        }
        if self.rules.hit_clamps {
            self.take_damage(t, Vec2::default());
        }
        true
    }

    /// `CLaser::DoBounce`: the beam goes on from its head with the
    /// energy it has left, to a character, a wall (where it bounces) or
    /// its end.
    pub fn laser_bounce(&mut self, l: &mut Laser) {
        l.eval_tick = self.tick;
        if l.energy < 0.0 {
            l.marked = true;
            return;
        }
        l.prev_pos = l.pos;
        let mut to = l.pos + l.dir * l.energy;
        let hit_wall = self.col.intersect_line(l.pos, to);
        if let Some((_, before, _)) = hit_wall {
            to = before;
        }
        let pos = l.pos;
        if hit_wall.is_some() {
            if !self.laser_hit(l, pos, to) {
                l.from = l.pos;
                l.pos = to;
                let mut temp_pos = l.pos;
                let mut temp_dir = l.dir * 4.0;
                self.col.move_point(&mut temp_pos, &mut temp_dir, 1.0);
                l.pos = temp_pos;
                l.dir = normalize(temp_dir);
                let distance = l.from.distance(l.pos);
                if distance == 0.0 && l.zero_energy_bounce_last_tick {
                    l.energy = -1.0;
                } else {
                    l.energy -= distance + self.tunings.zone(l.tune_zone).laser_bounce_cost();
                }
                l.zero_energy_bounce_last_tick = distance == 0.0;
                l.bounces += 1;
                if l.bounces > self.tunings.zone(l.tune_zone).laser_bounce_num() as i32 {
                    l.energy = -1.0;
                }
                self.effect(Effect::sound(l.pos, sound::LASER_BOUNCE));
            }
        } else if !self.laser_hit(l, pos, to) {
            l.from = l.pos;
            l.pos = to;
            l.energy = -1.0;
        }
    }

    /// A new laser of `kind` from `pos` (`CLaser`'s constructor): it
    /// bounces at once.
    pub fn new_laser(&mut self, pos: Vec2, dir: Vec2, energy: f32, owner: i32, kind: i32) -> Laser {
        let mut l = Laser {
            kind,
            owner,
            pos,
            from: Vec2::default(),
            dir,
            prev_pos: Vec2::default(),
            energy,
            bounces: 0,
            eval_tick: 0,
            zero_energy_bounce_last_tick: false,
            interactions: Interactions::default(),
            marked: false,
            seq: 0,
            snap_id: None,
            tune_zone: self.col.tune_zone_at(pos),
        };
        self.sync_laser(&mut l);
        self.laser_bounce(&mut l);
        l
    }

    /// `CLaser::Tick`: the next bounce once the bounce delay has passed.
    pub fn tick_laser(&mut self, l: &mut Laser) {
        self.sync_laser(l);
        if self.rules.destroy_lasers_on_death && l.owner >= 0 && self.alive(l.owner).is_none() {
            l.marked = true;
        }
        let delay = self.tunings.zone(l.tune_zone).laser_bounce_delay();
        if (self.tick - l.eval_tick) as f32 > (TICK_SPEED as f32 * delay) / 1000.0 {
            self.laser_bounce(l);
        }
    }

    /// `HandleNinja`: ninja runs out, or the dash moves the character's
    /// core through the map and knocks the characters near where it
    /// started upwards.
    pub fn handle_ninja(&mut self, cid: usize) {
        let tick = self.tick;
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        if ch.active_weapon != weapon::NINJA {
            return;
        }
        let duration = NINJA_DURATION_MS * TICK_SPEED / 1000;
        if tick - ch.ninja_activation_tick > duration {
            ch.remove_ninja(self.cores.release);
            return;
        }
        // The last five seconds counted down in stars.
        let ninja_time = ch.ninja_activation_tick + duration - tick;
        if ninja_time % TICK_SPEED == 0 && ninja_time / TICK_SPEED <= 5 {
            let pos = ch.pos;
            for e in Effect::damage_ind(pos, 0.0, ninja_time / TICK_SPEED, self.rules.release) {
                self.effect(e);
            }
        }
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        // The time left shown as armor (`SetArmorProgress` in 20.1).
        ch.armor = Character::armor_progress(ninja_time);
        ch.set_weapon(weapon::NINJA);
        ch.ninja.current_move_time -= 1;
        let dir = ch.ninja.activation_dir;
        let old_vel = ch.ninja.old_vel_amount;
        let move_time = ch.ninja.current_move_time;
        let old_pos = ch.pos;
        // `m_TuneZone`, where it stood at its tick's start (it has not
        // moved since); 16.4's dash has no elasticity, as its tuning.
        let t = self.tunings.zone(self.col.tune_zone_at(old_pos));
        let Some(core) = self.cores.slots[cid].as_mut() else {
            return;
        };
        if move_time == 0 {
            core.vel = dir * old_vel as f32;
        }
        if move_time <= 0 {
            return;
        }
        core.vel = dir * NINJA_VELOCITY;
        let elasticity = Vec2::new(t.ground_elasticity_x(), t.ground_elasticity_y());
        self.col.move_box(
            &mut core.pos,
            &mut core.vel,
            Vec2::new(PHYSICAL_SIZE, PHYSICAL_SIZE),
            elasticity,
        );
        core.vel = Vec2::default();
        let radius = PHYSICAL_SIZE * 2.0;
        let near: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&c| self.char_pos(c).distance(old_pos) < radius + PHYSICAL_SIZE)
            .collect();
        if self.solo(cid) {
            return;
        }
        for c in near {
            if c == cid || self.team(cid) != self.team(c) || self.solo(c) {
                continue;
            }
            let target_pos = self.char_pos(c);
            let Some(ch) = self.chars[cid].as_mut() else {
                return;
            };
            if ch.ninja.hit.contains(&c) || target_pos.distance(ch.pos) > radius {
                continue;
            }
            ch.ninja.hit.push(c);
            self.effect(Effect::sound(target_pos, sound::NINJA_HIT));
            self.take_damage(c, Vec2::new(0.0, -10.0));
            if let Some(target) = self.chars[c].as_mut() {
                target.pain(self.tick);
            }
        }
    }
}

/// The ninja's dash begins (`FireWeapon` with ninja): towards `dir`, for
/// `NINJA_MOVETIME_MS`, remembering the speed `vel` had in whole units a
/// tick (`m_OldVelAmount` is an `int` in 16.4 and 20.1: the dash ends at
/// 1 from 1.5, say).
pub fn start_dash(ch: &mut Character, dir: Vec2, vel: Vec2) {
    ch.ninja.hit.clear();
    ch.ninja.activation_dir = dir;
    ch.ninja.current_move_time = NINJA_MOVETIME_MS * TICK_SPEED / 1000;
    ch.ninja.old_vel_amount = vel.length().clamp(0.0, 6000.0) as i32;
}

/// A projectile `owner` fires from `pos` towards `dir` at `tick`, living
/// `lifetime` seconds (`(int)(50 * lifetime)` ticks).
pub fn new_projectile(
    kind: i32,
    owner: i32,
    pos: Vec2,
    dir: Vec2,
    lifetime: f32,
    explosive: bool,
    tick: i32,
) -> Projectile {
    Projectile {
        kind,
        owner,
        pos,
        dir,
        life_span: (TICK_SPEED as f32 * lifetime) as i32,
        start_tick: tick,
        explosive,
        freeze: false,
        bouncing: 0,
        switch: None,
        marked: false,
        snap_id: None,
        layer: 0,
        aim: dir,
        tune_zone: 0,
    }
}

#[cfg(test)]
mod tests;
