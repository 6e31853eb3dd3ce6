//! The map's entities that act on characters from the world's laser list
//! (`src/game/server/entities/gun.cpp`, `plasma.cpp`, `dragger.cpp`,
//! `dragger_beam.cpp`): plasma turrets that fire at the nearest
//! character of each team, their plasma bullets that freeze, unfreeze or
//! explode, and draggers whose beams pull one character of each team.
//!
//! DDNet puts all of them, with weapon lasers, in one entity list of the
//! laser type, newest first: the map's turrets and draggers (made at map
//! load, row by row, the game layer's before the front layer's and the
//! switch layer's on a tile) come last, and the list is ticked after the
//! projectiles and before the pickups. A bullet or beam made during the
//! pass goes to the head and waits for the next tick, except a new beam,
//! which its dragger ticks at once. Both releases follow the same rules
//! here; their explosions differ (see [`Ctx::explosion`]).

use super::snap_ids::SnapIds;
use super::weapons::{Ctx, Laser, Projectile};
use crate::simulation::Release;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::core::{MAX_CLIENTS, PHYSICAL_SIZE, clamp_vel, normalize};
use crate::simulation::physics::{Vec2, fmath, round_to_int};
use serde::Serialize;

/// Indices of the game, front and switch layers from here on are
/// entities (`ENTITY_OFFSET`).
const ENTITY_OFFSET: u8 = 255 - 16 * 4;
/// `ENTITY_DRAGGER_WEAK`, `_NORMAL`, `_STRONG`.
const DRAGGERS: std::ops::RangeInclusive<u8> = 42..=44;
/// The same without walls stopping the beam (`_NW`).
const DRAGGERS_NO_WALLS: std::ops::RangeInclusive<u8> = 45..=47;
/// `ENTITY_PLASMAE`, `ENTITY_PLASMAF`, `ENTITY_PLASMA`, `ENTITY_PLASMAU`:
/// (freezes, explodes).
const TURRETS: [(u8, bool, bool); 4] = [
    (29, false, true),
    (30, true, false),
    (31, true, true),
    (32, false, false),
];
/// Turrets and draggers look around (and movers move them) every this
/// many ticks (`TickSpeed() * 0.15`, truncated).
const EVAL_PERIOD: i32 = 7;
/// A plasma bullet's speed grows by this every tick (`PLASMA_ACCEL`).
const PLASMA_ACCEL: f32 = 1.1;
/// A plasma bullet lives this many ticks (`TickSpeed() * 1.5`).
const PLASMA_LIFETIME: i32 = 75;
/// Ticks a second.
const TICK_SPEED: i32 = 50;

/// A plasma turret (`CGun`).
#[derive(Clone, Debug, Serialize)]
pub struct Turret {
    /// Where it stands.
    pub pos: Vec2,
    /// What a mover tile last gave it, added every evaluation.
    pub mover: Vec2,
    /// Its bullets freeze (else unfreeze).
    pub freeze: bool,
    /// Its bullets explode.
    pub explosive: bool,
    /// Its switch (switch layer only; 0: always on): it fires at a team
    /// while the switch is on there.
    #[serde(skip)]
    pub number: u8,
    /// The tick it last fired at each team, and at each solo character.
    #[serde(skip)]
    last_fire_team: Vec<i32>,
    #[serde(skip)]
    last_fire_solo: Vec<i32>,
    /// The layer that made it (`LAYER_GAME`, `_FRONT` or `_SWITCH`).
    #[serde(skip)]
    pub layer: u8,
    /// Its snapshot id (`None`: the server had none left).
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// A dragger (`CDragger`).
#[derive(Clone, Debug, Serialize)]
pub struct Dragger {
    /// Where it stands.
    pub pos: Vec2,
    /// What a mover tile last gave it.
    pub mover: Vec2,
    /// The pull a tick: 1, 2 or 3.
    pub strength: f32,
    /// Walls do not stop its beams (only nolaser tiles do).
    pub ignore_walls: bool,
    /// Its switch (switch layer only; 0: always on): it drags a team
    /// while the switch is on there.
    #[serde(skip)]
    pub number: u8,
    /// The character each team is dragged by (-1: none).
    #[serde(skip)]
    target_in_team: Vec<i32>,
    /// Whether a beam pulls each client id.
    #[serde(skip)]
    beam: Vec<bool>,
    /// The layer that made it.
    #[serde(skip)]
    pub layer: u8,
    /// Its snapshot id.
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// A door's laser (`CDoor`): from its tile to the first wall on its way,
/// as long as the laser-length tile beside it says. Its stoppers are the
/// collision's ([`Collision::door_at`]); here it is what is snapped.
#[derive(Clone, Debug, Serialize)]
pub struct Door {
    /// Its tile's centre.
    pub pos: Vec2,
    /// The laser's end.
    pub to: Vec2,
    /// Its switch (0: none).
    pub number: u8,
    /// Its snapshot id.
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// A freezing light (`CLight`): a laser from its tile, turning and
/// growing or shrinking every evaluation. Its freezing is not modelled
/// (the coverage table names it); where its end is, is, for the
/// snapshots.
#[derive(Clone, Debug, Serialize)]
pub struct Light {
    /// Its tile's centre (movers move it).
    pub pos: Vec2,
    /// The laser's end (`m_To`).
    pub to: Vec2,
    /// Its angle, radians (`m_Rotation`).
    pub rotation: f32,
    /// Turned by this every tick of an evaluation (`m_AngularSpeed`).
    pub angular_speed: f32,
    /// Its full length (`m_Length`).
    pub length: i32,
    /// The length it has now (`m_CurveLength`).
    pub curve_length: i32,
    /// What an evaluation's growth went past an end (`m_LengthL`).
    length_l: i32,
    /// Growth a tick (negative: shrinking; 0: fixed).
    pub speed: i32,
    /// What a mover tile last gave it.
    pub mover: Vec2,
    /// The tick of its last evaluation.
    pub eval_tick: i32,
    /// The layer that made it.
    pub layer: u8,
    /// Its switch (0: none).
    pub number: u8,
    /// Its snapshot id.
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// A turret, a dragger, a door or a light, as the map made them: the
/// map's entities of the world's laser list.
#[derive(Clone, Debug, Serialize)]
pub enum Device {
    /// A plasma turret.
    Turret(Turret),
    /// A dragger.
    Dragger(Dragger),
    /// A door.
    Door(Door),
    /// A light.
    Light(Light),
}

/// A plasma bullet (`CPlasma`), flying at one character.
#[derive(Clone, Debug, Serialize)]
pub struct Plasma {
    /// Where it is.
    pub pos: Vec2,
    /// Its move a tick.
    pub vel: Vec2,
    /// Freezes (else unfreezes) whom it hits.
    pub freeze: bool,
    /// Explodes where it hits.
    pub explosive: bool,
    /// The character it flies at.
    pub target: usize,
    /// Ticks left.
    pub life_time: i32,
    /// Its place in the laser list (higher: newer).
    #[serde(skip)]
    pub seq: u64,
    /// Gone at the end of this tick.
    pub marked: bool,
    /// The tick it was made (`m_EvalTick`).
    #[serde(skip)]
    pub eval_tick: i32,
    /// Its snapshot id.
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// A dragger's beam on one character (`CDraggerBeam`).
#[derive(Clone, Debug, Serialize)]
pub struct Beam {
    /// Its dragger, by index in [`Devices::devices`].
    pub dragger: usize,
    /// The dragger's position.
    pub pos: Vec2,
    /// The character it pulls.
    pub target: usize,
    /// Still pulling.
    pub active: bool,
    /// Its place in the laser list (higher: newer).
    #[serde(skip)]
    pub seq: u64,
    /// The tick it was made (`m_EvalTick`).
    #[serde(skip)]
    pub eval_tick: i32,
    /// Its snapshot id.
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// The settings these entities read.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Whose freeze rule.
    pub release: Release,
    /// `sv_plasma_range`.
    pub plasma_range: i32,
    /// `sv_plasma_per_sec`.
    pub plasma_per_sec: i32,
    /// `sv_dragger_range`.
    pub dragger_range: i32,
    /// `sv_freeze_delay`: seconds a freezing bullet freezes.
    pub freeze_delay: i32,
}

/// The map's turrets and draggers, and the bullets and beams they made.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Devices {
    /// In the order the map made them (the list ticks them backwards).
    pub devices: Vec<Device>,
    /// Plasma bullets, newest first.
    pub plasmas: Vec<Plasma>,
    /// Dragger beams, newest first.
    pub beams: Vec<Beam>,
    /// The next laser-list place to give out.
    #[serde(skip)]
    pub next_seq: u64,
}

impl Devices {
    /// The turrets, draggers, doors and lights of a map, in the order it
    /// makes them at `tick`.
    pub fn of(col: &Collision, tick: i32) -> Devices {
        let mut devices = Vec::new();
        for e in entities(col) {
            Device::make(col, e, tick, &mut devices);
        }
        Devices {
            devices,
            ..Devices::default()
        }
    }

    /// Nothing here changes while nobody plays: no bullet or beam, no
    /// dragger holding a target, no light turning or growing, nothing a
    /// mover moves.
    pub fn is_idle(&self, col: &Collision) -> bool {
        self.plasmas.is_empty()
            && self.beams.is_empty()
            && self.devices.iter().all(|d| {
                let (pos, mover) = d.place();
                mover == Vec2::default()
                    && (matches!(d, Device::Door(_))
                        || col.mover_speed(pos.x as i32, pos.y as i32).is_none())
                    && match d {
                        Device::Dragger(g) => g.target_in_team.iter().all(|&t| t == -1),
                        // A light turning or growing catches up.
                        Device::Turret(_) | Device::Door(_) | Device::Light(_) => true,
                    }
            })
    }

    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// A place in the laser list for a weapon laser made now.
    pub fn place_laser(&mut self, l: &mut Laser) {
        l.seq = self.seq();
    }

    /// The laser list's pass (`CGameWorld::Tick` over `ENTTYPE_LASER`):
    /// weapon lasers, bullets and beams newest first, then the map's
    /// turrets, draggers and lights, newest first (doors do nothing).
    /// Bullets and beams made take their snapshot ids from `ids`.
    pub fn tick(
        &mut self,
        ctx: &mut Ctx<'_>,
        s: Settings,
        lasers: &mut [Laser],
        ids: &mut SnapIds,
    ) {
        enum Item {
            Laser(usize),
            Plasma(usize),
            Beam(usize),
        }
        let mut items: Vec<(u64, Item)> = Vec::new();
        items.extend(
            lasers
                .iter()
                .enumerate()
                .map(|(i, l)| (l.seq, Item::Laser(i))),
        );
        items.extend(
            self.plasmas
                .iter()
                .enumerate()
                .map(|(i, p)| (p.seq, Item::Plasma(i))),
        );
        items.extend(
            self.beams
                .iter()
                .enumerate()
                .map(|(i, b)| (b.seq, Item::Beam(i))),
        );
        items.sort_by_key(|item| std::cmp::Reverse(item.0));
        // Nothing is made before the devices tick: the indices hold.
        for (_, item) in items {
            match item {
                Item::Laser(i) => ctx.tick_laser(&mut lasers[i]),
                Item::Plasma(i) => tick_plasma(ctx, s, &mut self.plasmas[i]),
                Item::Beam(i) => self.tick_beam(ctx, s, i),
            }
        }
        for d in (0..self.devices.len()).rev() {
            match &mut self.devices[d] {
                Device::Turret(_) => self.tick_turret(ctx, s, d, ids),
                Device::Dragger(_) => self.tick_dragger(ctx, s, d, ids),
                Device::Light(l) => tick_light(ctx, l),
                Device::Door(_) => {}
            }
        }
    }

    /// `RemoveEntities` over the laser list: the marked weapon lasers,
    /// bullets and beams go, newest first, each freeing its snapshot id.
    pub fn remove_marked(&mut self, lasers: &mut Vec<Laser>, ids: &mut SnapIds, tick: i32) {
        let mut gone: Vec<(u64, Option<i32>)> = Vec::new();
        gone.extend(
            lasers
                .iter()
                .filter(|l| l.marked)
                .map(|l| (l.seq, l.snap_id)),
        );
        gone.extend(
            self.plasmas
                .iter()
                .filter(|p| p.marked)
                .map(|p| (p.seq, p.snap_id)),
        );
        gone.extend(
            self.beams
                .iter()
                .filter(|b| !b.active)
                .map(|b| (b.seq, b.snap_id)),
        );
        gone.sort_by_key(|g| std::cmp::Reverse(g.0));
        for (_, id) in gone {
            ids.free(id, tick);
        }
        lasers.retain(|l| !l.marked);
        self.plasmas.retain(|p| !p.marked);
        self.beams.retain(|b| b.active);
    }

    /// The laser list as `CGameWorld::Snap` meets it: weapon lasers,
    /// bullets and beams newest first, then the map's devices, newest
    /// first.
    pub fn snap_order<'a>(&'a self, lasers: &'a [Laser]) -> Vec<LaserEntity<'a>> {
        let mut made: Vec<(u64, LaserEntity<'a>)> = Vec::new();
        made.extend(lasers.iter().map(|l| (l.seq, LaserEntity::Weapon(l))));
        made.extend(self.plasmas.iter().map(|p| (p.seq, LaserEntity::Plasma(p))));
        made.extend(self.beams.iter().map(|b| (b.seq, LaserEntity::Beam(b))));
        made.sort_by_key(|m| std::cmp::Reverse(m.0));
        let mut out: Vec<LaserEntity<'a>> = made.into_iter().map(|m| m.1).collect();
        out.extend(
            self.devices
                .iter()
                .enumerate()
                .rev()
                .map(|(i, d)| LaserEntity::Device(i, d)),
        );
        out
    }

    /// `CGun::Tick`: the mover, then `Fire`: a bullet at the nearest
    /// reachable character of each team, and at each solo character,
    /// each at most `sv_plasma_per_sec` times a second.
    fn tick_turret(&mut self, ctx: &mut Ctx<'_>, s: Settings, d: usize, ids: &mut SnapIds) {
        let Device::Turret(t) = &mut self.devices[d] else {
            return;
        };
        move_device(ctx, &mut t.pos, &mut t.mover);
        if s.plasma_per_sec <= 0 {
            return;
        }
        let interval = TICK_SPEED / s.plasma_per_sec;
        let mut target_in_team = vec![-1i32; MAX_CLIENTS];
        let mut min_dist_in_team = vec![0i32; MAX_CLIENTS];
        let mut is_target = [false; MAX_CLIENTS];
        for &c in ctx.order {
            let at = char_pos(ctx, c);
            if at.distance(t.pos) >= s.plasma_range as f32 + PHYSICAL_SIZE {
                continue;
            }
            let team = ctx.cores.teams.team[c];
            if team == ctx.cores.teams.super_team || !switched_on(ctx, t.number, team) {
                continue;
            }
            let solo = ctx.cores.teams.solo[c];
            let last = match solo {
                true => t.last_fire_solo[c],
                false => t.last_fire_team[team as usize],
            };
            if last + interval > ctx.tick || ctx.col.intersect_line(t.pos, at).is_some() {
                continue;
            }
            if solo {
                is_target[c] = true;
                t.last_fire_solo[c] = ctx.tick;
            } else {
                let dist = at.distance(t.pos) as i32;
                let min = &mut min_dist_in_team[team as usize];
                if *min == 0 || *min > dist {
                    *min = dist;
                    target_in_team[team as usize] = c as i32;
                }
            }
        }
        for (team, &target) in target_in_team.iter().enumerate() {
            if target != -1 {
                is_target[target as usize] = true;
                t.last_fire_team[team] = ctx.tick;
            }
        }
        let (pos, freeze, explosive) = (t.pos, t.freeze, t.explosive);
        for c in (0..MAX_CLIENTS).filter(|&c| is_target[c]) {
            let seq = self.seq();
            self.plasmas.insert(
                0,
                Plasma {
                    pos,
                    vel: normalize(char_pos(ctx, c) - pos),
                    freeze,
                    explosive,
                    target: c,
                    life_time: PLASMA_LIFETIME,
                    seq,
                    marked: false,
                    eval_tick: ctx.tick,
                    snap_id: ids.take(ctx.tick),
                },
            );
        }
    }

    /// `CDragger::Tick`: every evaluation, the mover, then
    /// `LookForPlayersToDrag`: the team's target stays while it can be
    /// dragged, else the nearest reachable character of the team is; solo
    /// characters are each dragged. A new beam pulls at once.
    fn tick_dragger(&mut self, ctx: &mut Ctx<'_>, s: Settings, d: usize, ids: &mut SnapIds) {
        if ctx.tick % EVAL_PERIOD != 0 {
            return;
        }
        let Device::Dragger(g) = &mut self.devices[d] else {
            return;
        };
        move_device(ctx, &mut g.pos, &mut g.mover);
        let pos = g.pos;
        for b in self.beams.iter_mut().filter(|b| b.dragger == d) {
            b.pos = pos;
        }
        let Device::Dragger(g) = &mut self.devices[d] else {
            return;
        };
        let mut closest_in_team = vec![-1i32; MAX_CLIENTS];
        let mut min_dist_in_team = vec![0i32; MAX_CLIENTS];
        let mut can_stay = [false; MAX_CLIENTS];
        let mut is_target = [false; MAX_CLIENTS];
        let reach = (s.dragger_range as f32 - PHYSICAL_SIZE) + PHYSICAL_SIZE;
        for &c in ctx.order {
            let at = char_pos(ctx, c);
            if at.distance(pos) >= reach {
                continue;
            }
            let team = ctx.cores.teams.team[c];
            if team == ctx.cores.teams.super_team || !switched_on(ctx, g.number, team) {
                continue;
            }
            if beam_blocked(ctx, g.ignore_walls, pos, at) {
                continue;
            }
            if ctx.cores.teams.solo[c] {
                is_target[c] = true;
            } else {
                let dist = at.distance(pos) as i32;
                let min = &mut min_dist_in_team[team as usize];
                if *min == 0 || *min > dist {
                    *min = dist;
                    closest_in_team[team as usize] = c as i32;
                }
                can_stay[c] = true;
            }
        }
        for team in 0..MAX_CLIENTS {
            let held = g.target_in_team[team];
            if held == -1 || !can_stay[held as usize] {
                g.target_in_team[team] = closest_in_team[team];
            }
            if g.target_in_team[team] != -1 {
                is_target[g.target_in_team[team] as usize] = true;
            }
        }
        for (c, &target) in is_target.iter().enumerate() {
            let Device::Dragger(g) = &mut self.devices[d] else {
                return;
            };
            if target && !g.beam[c] {
                g.beam[c] = true;
                let seq = self.seq();
                self.beams.insert(
                    0,
                    Beam {
                        dragger: d,
                        pos,
                        target: c,
                        active: true,
                        seq,
                        eval_tick: ctx.tick,
                        snap_id: ids.take(ctx.tick),
                    },
                );
                self.tick_beam(ctx, s, 0);
            } else if !target
                && g.beam[c]
                && let Some(b) = self
                    .beams
                    .iter()
                    .position(|b| b.dragger == d && b.target == c && b.active)
            {
                self.reset_beam(b);
            }
        }
    }

    /// `CDraggerBeam::Tick`: pulls its character towards the dragger by
    /// the dragger's strength (not within 28 units of its centre), or
    /// dissolves when the character is gone, out of range or behind a
    /// wall.
    fn tick_beam(&mut self, ctx: &mut Ctx<'_>, s: Settings, b: usize) {
        let beam = &self.beams[b];
        if !beam.active {
            return;
        }
        let (c, pos) = (beam.target, beam.pos);
        let Device::Dragger(g) = &self.devices[beam.dragger] else {
            return;
        };
        let (strength, ignore_walls, number) = (g.strength, g.ignore_walls, g.number);
        if ctx.chars[c].is_none() {
            self.reset_beam(b);
            return;
        }
        // Its dragger's switch, off in the character's team, is seen at
        // the dragger's evaluations only.
        if ctx.tick % EVAL_PERIOD == 0 && !switched_on(ctx, number, ctx.cores.teams.team[c]) {
            self.reset_beam(b);
            return;
        }
        let at = char_pos(ctx, c);
        if at.distance(pos) >= s.dragger_range as f32 || beam_blocked(ctx, ignore_walls, pos, at) {
            self.reset_beam(b);
            return;
        }
        if at.distance(pos) > PHYSICAL_SIZE {
            let restrictions = ctx.chars[c].as_ref().map_or(0, |ch| ch.move_restrictions);
            if let Some(core) = ctx.cores.slots[c].as_mut() {
                core.vel = clamp_vel(restrictions, core.vel + normalize(pos - at) * strength);
            }
        }
    }

    /// `CDraggerBeam::Reset`: inactive, and its dragger's slot free.
    fn reset_beam(&mut self, b: usize) {
        let beam = &mut self.beams[b];
        beam.active = false;
        let (d, c) = (beam.dragger, beam.target);
        if let Device::Dragger(g) = &mut self.devices[d] {
            g.beam[c] = false;
        }
    }
}

impl Device {
    /// What entity `e` makes of the laser list (`OnEntity`), pushed in
    /// the order it makes them: a door or a light for each laser-length
    /// tile around it, a turret, a dragger.
    fn make(col: &Collision, e: MapEntity, tick: i32, out: &mut Vec<Device>) {
        let (pos, number, layer) = (e.pos, e.number, e.layer);
        let dragger = |strength: u8, ignore_walls| {
            Device::Dragger(Dragger {
                pos,
                mover: Vec2::default(),
                strength: f32::from(strength),
                ignore_walls,
                number,
                target_in_team: vec![-1; MAX_CLIENTS],
                beam: vec![false; MAX_CLIENTS],
                layer,
                snap_id: None,
            })
        };
        if DRAGGERS.contains(&e.entity) {
            return out.push(dragger(e.entity - DRAGGERS.start() + 1, false));
        }
        if DRAGGERS_NO_WALLS.contains(&e.entity) {
            return out.push(dragger(e.entity - DRAGGERS_NO_WALLS.start() + 1, true));
        }
        if let Some(&(_, freeze, explosive)) = TURRETS.iter().find(|t| t.0 == e.entity) {
            return out.push(Device::Turret(Turret {
                pos,
                mover: Vec2::default(),
                freeze,
                explosive,
                number,
                last_fire_team: vec![0; MAX_CLIENTS],
                last_fire_solo: vec![0; MAX_CLIENTS],
                layer,
                snap_id: None,
            }));
        }
        let light = LIGHTS.contains(&e.entity);
        if e.entity != DOOR && !light {
            return;
        }
        // The eight tiles around, and twice as far for a light's growth
        // (`aSides2`).
        use crate::simulation::physics::collision::SIDES;
        for (k, (dx, dy)) in SIDES.into_iter().enumerate() {
            let Some(side) = entity_at(col, e.x + dx, e.y + dy, layer) else {
                continue;
            };
            if !LASER_LENGTHS.contains(&side) {
                continue;
            }
            let rotation = std::f32::consts::PI / 4.0 * k as f32;
            let length = 32 * 3 + 32 * i32::from(side - LASER_LENGTHS.start()) * 3;
            if !light {
                let dir = Vec2::new(fmath::sinf(rotation), fmath::cosf(rotation));
                let to = pos + normalize(dir) * length as f32;
                out.push(Device::Door(Door {
                    pos,
                    to: no_laser_end(col, pos, to),
                    number,
                    snap_id: None,
                }));
                continue;
            }
            // `ENTITY_LASER_STOP` turns not at all; the three before it
            // counterclockwise, the three after clockwise, faster away
            // from it.
            let steps = i32::from(e.entity) - LASER_STOP;
            let turn = [
                0.0,
                std::f32::consts::PI / 360.0,
                std::f32::consts::PI / 180.0,
                std::f32::consts::PI / 90.0,
            ];
            let angular_speed = turn[steps.unsigned_abs() as usize] * -(steps.signum() as f32);
            let growth = entity_at(col, e.x + 2 * dx, e.y + 2 * dy, layer);
            let (speed, curve_length) = match growth {
                Some(g) if (22..=24).contains(&g) => (1 + i32::from(g - 22) * 2, length),
                Some(g) if (25..=27).contains(&g) => (1 + i32::from(g - 25) * 2, 0),
                _ => (0, length),
            };
            // The constructor's first step, with nothing set yet: no
            // length, so the laser ends where it starts.
            out.push(Device::Light(Light {
                pos,
                to: pos,
                rotation,
                angular_speed,
                length,
                curve_length,
                length_l: 0,
                speed,
                mover: Vec2::default(),
                eval_tick: tick,
                layer,
                number,
                snap_id: None,
            }));
        }
    }

    fn place(&self) -> (Vec2, Vec2) {
        match self {
            Device::Turret(t) => (t.pos, t.mover),
            Device::Dragger(g) => (g.pos, g.mover),
            Device::Door(d) => (d.pos, Vec2::default()),
            Device::Light(l) => (l.pos, l.mover),
        }
    }

    /// Its snapshot id.
    pub fn snap_id(&self) -> Option<i32> {
        match self {
            Device::Turret(t) => t.snap_id,
            Device::Dragger(g) => g.snap_id,
            Device::Door(d) => d.snap_id,
            Device::Light(l) => l.snap_id,
        }
    }

    /// Gives it its snapshot id.
    pub fn set_snap_id(&mut self, id: Option<i32>) {
        match self {
            Device::Turret(t) => t.snap_id = id,
            Device::Dragger(g) => g.snap_id = id,
            Device::Door(d) => d.snap_id = id,
            Device::Light(l) => l.snap_id = id,
        }
    }
}

/// An entity of the world's laser list, as snapped.
#[derive(Clone, Copy, Debug)]
pub enum LaserEntity<'a> {
    /// A laser rifle's or shotgun's beam.
    Weapon(&'a Laser),
    /// A turret's bullet.
    Plasma(&'a Plasma),
    /// A dragger's beam.
    Beam(&'a Beam),
    /// The map's, with its index in [`Devices::devices`].
    Device(usize, &'a Device),
}

/// One entity tile as DDNet's loader meets it.
#[derive(Clone, Copy, Debug)]
pub struct MapEntity {
    /// Its tile's column.
    pub x: i32,
    /// Its tile's row.
    pub y: i32,
    /// The tile's centre.
    pub pos: Vec2,
    /// The index minus `ENTITY_OFFSET` (1: a spawn, ...).
    pub entity: u8,
    /// DDNet's layer number: `LAYER_GAME` 0, `LAYER_FRONT` 1,
    /// `LAYER_SWITCH` 4.
    pub layer: u8,
    /// Its switch (the switch layer's number; 0 elsewhere).
    pub number: u8,
    /// The tile's flags (rotation, flips).
    pub flags: u8,
}

/// DDNet's numbers of the layers that hold entities (`LAYER_GAME`,
/// `LAYER_FRONT`, `LAYER_SWITCH`).
pub const LAYER_GAME: u8 = 0;
/// See [`LAYER_GAME`].
pub const LAYER_FRONT: u8 = 1;
/// See [`LAYER_GAME`].
pub const LAYER_SWITCH: u8 = 4;

/// `ENTITY_DOOR`.
const DOOR: u8 = 49;
/// `ENTITY_LASER_FAST_CCW` to `ENTITY_LASER_FAST_CW`, with
/// `ENTITY_LASER_STOP` between them.
const LIGHTS: std::ops::RangeInclusive<u8> = 12..=18;
const LASER_STOP: i32 = 15;
/// `ENTITY_LASER_SHORT` to `ENTITY_LASER_LONG`: beside a door or a
/// light, its direction and length.
const LASER_LENGTHS: std::ops::RangeInclusive<u8> = 19..=21;

/// `CCollision::Entity`: the entity at tile (`x`, `y`) of `layer`, none
/// outside the map or below the entities.
fn entity_at(col: &Collision, x: i32, y: i32, layer: u8) -> Option<u8> {
    if !(0..col.width()).contains(&x) || !(0..col.height()).contains(&y) {
        return None;
    }
    let i = (y * col.width() + x) as usize;
    let index = match layer {
        LAYER_GAME => col.game_index(i),
        LAYER_FRONT => col.front_index(i),
        _ => col.switch_at(i).0,
    };
    index.checked_sub(ENTITY_OFFSET)
}

/// `IntersectNoLaser`'s collision point: the first of `ceil(distance)`
/// points from `from` towards `to`, a unit apart, in a wall, nohook or
/// nolaser tile of the game layer or nolaser of the front layer; `to`
/// when there is none.
fn no_laser_end(col: &Collision, from: Vec2, to: Vec2) -> Vec2 {
    use crate::simulation::physics::collision::{TILE_NOHOOK, TILE_NOLASER, TILE_SOLID};
    let d = from.distance(to);
    for i in 0..d.ceil() as i32 {
        let p = from.mix(to, i as f32 / d);
        let x = (round_to_int(p.x) / 32).clamp(0, col.width() - 1);
        let y = (round_to_int(p.y) / 32).clamp(0, col.height() - 1);
        let cell = (y * col.width() + x) as usize;
        if matches!(
            col.game_index(cell),
            TILE_SOLID | TILE_NOHOOK | TILE_NOLASER
        ) || col.front_index(cell) == TILE_NOLASER
        {
            return p;
        }
    }
    to
}

/// `CLight::Tick` without the freezing: every evaluation, the mover,
/// then `Step`: it grows or shrinks (turning back at either end, what
/// went past an end counted into the next step), turns, and its end is
/// where the laser meets a wall. Evaluations an empty world crossed at
/// once (no mover under it, or it would not be empty) are caught up
/// here, so its end is always that of its last evaluation.
fn tick_light(ctx: &Ctx<'_>, l: &mut Light) {
    let last = ctx.tick - ctx.tick.rem_euclid(EVAL_PERIOD);
    if last <= l.eval_tick {
        return;
    }
    let mut eval = l.eval_tick - l.eval_tick.rem_euclid(EVAL_PERIOD) + EVAL_PERIOD;
    while eval <= last {
        if eval == ctx.tick {
            move_device(ctx, &mut l.pos, &mut l.mover);
        }
        move_light(l);
        eval += EVAL_PERIOD;
    }
    l.eval_tick = last;
    let dir = Vec2::new(fmath::sinf(l.rotation), fmath::cosf(l.rotation));
    let to = l.pos + normalize(dir) * l.curve_length as f32;
    l.to = no_laser_end(ctx.col, l.pos, to);
}

/// `CLight::Move`: one evaluation's growth and turn.
fn move_light(l: &mut Light) {
    if l.speed != 0 {
        if (l.curve_length >= l.length && l.speed > 0) || (l.curve_length <= 0 && l.speed < 0) {
            l.speed = -l.speed;
        }
        l.curve_length += l.speed * EVAL_PERIOD + l.length_l;
        l.length_l = 0;
        if l.curve_length > l.length {
            l.length_l = l.curve_length - l.length;
            l.curve_length = l.length;
        } else if l.curve_length < 0 {
            l.length_l = l.curve_length;
            l.curve_length = 0;
        }
    }
    let full = std::f32::consts::PI * 2.0;
    l.rotation += l.angular_speed * EVAL_PERIOD as f32;
    if l.rotation > full {
        l.rotation -= full;
    } else if l.rotation < 0.0 {
        l.rotation += full;
    }
}

/// The map's entities as DDNet's loader meets them (`CGameContext::OnInit`
/// calling `OnEntity`): row by row, on each tile the game layer's, the
/// front layer's, then the switch layer's.
pub fn entities(col: &Collision) -> impl Iterator<Item = MapEntity> + '_ {
    (0..col.height()).flat_map(move |y| {
        (0..col.width()).flat_map(move |x| {
            let i = (y * col.width() + x) as usize;
            let pos = Vec2::new(x as f32 * 32.0 + 16.0, y as f32 * 32.0 + 16.0);
            let (kind, number, _) = col.switch_at(i);
            let flags = col.flags_at(i);
            [
                (col.game_index(i), LAYER_GAME, 0, flags[0]),
                (col.front_index(i), LAYER_FRONT, 0, flags[1]),
                (kind, LAYER_SWITCH, number, flags[2]),
            ]
            .into_iter()
            .filter(|&(index, ..)| index >= ENTITY_OFFSET)
            .map(move |(index, layer, number, flags)| MapEntity {
                x,
                y,
                pos,
                entity: index - ENTITY_OFFSET,
                layer,
                number,
                flags,
            })
        })
    })
}

/// Whether an entity of switch `number` (0: none) acts on `team`.
fn switched_on(ctx: &Ctx<'_>, number: u8, team: i32) -> bool {
    number == 0 || ctx.cores.switchers.is_on(number, team)
}

/// Every evaluation a turret or dragger takes the speed of the mover
/// tile it stands on, if any, and moves by the last one it took.
fn move_device(ctx: &Ctx<'_>, pos: &mut Vec2, mover: &mut Vec2) {
    if ctx.tick % EVAL_PERIOD != 0 {
        return;
    }
    if let Some(speed) = ctx.col.mover_speed(pos.x as i32, pos.y as i32) {
        *mover = speed;
    }
    *pos = *pos + *mover;
}

/// `m_Pos` of a character that exists.
fn char_pos(ctx: &Ctx<'_>, c: usize) -> Vec2 {
    ctx.chars[c].as_ref().map_or(Vec2::default(), |ch| ch.pos)
}

/// Whether a dragger's beam from `from` to `to` is stopped: by nolaser
/// tiles, and unless it ignores walls by solid ones.
fn beam_blocked(ctx: &Ctx<'_>, ignore_walls: bool, from: Vec2, to: Vec2) -> bool {
    match ignore_walls {
        true => ctx.col.intersect_nolaser_only(from, to),
        false => ctx.col.intersect_no_laser(from, to),
    }
}

/// `CPlasma::Tick`: gone when its time is up or its character is; else
/// it moves, faster each tick, and hits the first character on its way
/// that collides with its target (freezing or unfreezing it, and maybe
/// exploding), then a wall or nolaser tile (exploding there too).
fn tick_plasma(ctx: &mut Ctx<'_>, s: Settings, p: &mut Plasma) {
    if p.life_time == 0 || ctx.chars[p.target].is_none() {
        p.marked = true;
        return;
    }
    p.life_time -= 1;
    p.pos = p.pos + p.vel;
    p.vel = p.vel * PLASMA_ACCEL;
    let target_team = ctx.cores.teams.team[p.target];
    let next = p.pos + p.vel;
    if let Some((hit, _)) = ctx.intersect_character(p.pos, next, 0.0, None, p.target as i32, None)
        && ctx.cores.teams.team[hit] != ctx.cores.teams.super_team
    {
        let super_ = ctx.cores.slots[hit].as_ref().is_some_and(|c| c.super_);
        if let Some(ch) = ctx.chars[hit].as_mut() {
            match p.freeze {
                true => {
                    ch.freeze_at(s.freeze_delay, ctx.tick, super_, s.release);
                }
                false => {
                    ch.unfreeze();
                }
            }
        }
        if p.explosive {
            ctx.explosion(p.pos, p.target as i32, true, target_team);
        }
        p.marked = true;
    }
    if ctx.col.intersect_no_laser(p.pos, next) {
        if p.explosive {
            ctx.explosion(p.pos, p.target as i32, true, target_team);
        }
        p.marked = true;
    }
}

/// `ENTITY_CRAZY_SHOTGUN_EX` (explosive) and `ENTITY_CRAZY_SHOTGUN`.
const CRAZY_SHOTGUNS: [(u8, bool); 2] = [(33, true), (34, false)];

/// The map's crazy shotgun bullets (`OnEntity`), newest first as the
/// world's projectile list has them, made at `tick`: each a shotgun
/// bullet of nobody that freezes and never ends, down, left, up or right
/// by its tile's rotation (0, 90, 180, other degrees), bouncing off walls
/// up and down when vertical, sideways when not. They move by the global
/// tuning, as the world's other projectiles do here.
pub fn bullets(col: &Collision, tick: i32) -> Vec<Projectile> {
    let mut out = Vec::new();
    for e in entities(col) {
        let Some(&(_, explosive)) = CRAZY_SHOTGUNS.iter().find(|c| c.0 == e.entity) else {
            continue;
        };
        // `ROTATION_90` is `TILEFLAG_ROTATE`, `ROTATION_180` both flips.
        let dir: u8 = match e.flags {
            0 => 0,
            8 => 1,
            3 => 2,
            _ => 3,
        };
        let deg = f32::from(dir) * (std::f32::consts::PI / 2.0);
        let d = Vec2::new(fmath::sinf(deg), fmath::cosf(deg));
        out.push(Projectile {
            kind: super::character::weapon::SHOTGUN,
            owner: -1,
            pos: e.pos,
            dir: d,
            life_span: -2,
            start_tick: tick,
            explosive,
            freeze: true,
            bouncing: 2 - dir % 2,
            switch: (e.layer == LAYER_SWITCH).then_some(e.number),
            marked: false,
            snap_id: None,
            layer: e.layer,
            aim: d,
            tune_zone: col.tune_zone_at(e.pos),
        });
    }
    out.reverse();
    out
}

/// What takes a snapshot id when the map is loaded, in the order
/// `OnEntity` makes them (each `CEntity` takes the next id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Made {
    /// The next pickup.
    Pickup,
    /// The next crazy shotgun bullet.
    Bullet,
    /// The next device ([`Devices::devices`]).
    Device,
}

/// What a pickup gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PickupKind {
    /// A heart: under DDRace, it freezes.
    Health,
    /// A shield: takes shotgun, grenade, laser and ninja away.
    Armor,
    /// A weapon.
    Weapon(i32),
    /// Ninja.
    Ninja,
}

/// The pickup entity `entity` (index minus `ENTITY_OFFSET`) makes, if
/// any.
pub fn pickup_kind(entity: u8) -> Option<PickupKind> {
    Some(match entity {
        6 => PickupKind::Armor,
        7 => PickupKind::Health,
        8 => PickupKind::Weapon(super::character::weapon::SHOTGUN),
        9 => PickupKind::Weapon(super::character::weapon::GRENADE),
        10 => PickupKind::Ninja,
        11 => PickupKind::Weapon(super::character::weapon::LASER),
        _ => return None,
    })
}

/// The map's entities that take snapshot ids, in the order they take
/// them: tile by tile, what each makes (doors and lights one per
/// laser-length tile beside them).
pub fn made(col: &Collision) -> Vec<Made> {
    let mut out = Vec::new();
    for e in entities(col) {
        if CRAZY_SHOTGUNS.iter().any(|c| c.0 == e.entity) {
            out.push(Made::Bullet);
        } else if pickup_kind(e.entity).is_some() {
            out.push(Made::Pickup);
        } else {
            let mut devices = Vec::new();
            Device::make(col, e, 0, &mut devices);
            out.extend(devices.iter().map(|_| Made::Device));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::Tile;

    #[test]
    fn crazy_shotguns_become_bullets_by_their_rotation_newest_first() {
        // A 10 by 4 map: the explosive one at (2, 1) unrotated (down),
        // the other at (5, 1) rotated a quarter (sideways).
        let mut tiles = vec![Tile::default(); 40];
        tiles[12] = Tile {
            index: ENTITY_OFFSET + 33,
            ..Tile::default()
        };
        tiles[15] = Tile {
            index: ENTITY_OFFSET + 34,
            flags: 8,
            ..Tile::default()
        };
        let col = Collision::new(10, 4, &tiles).expect("a grid");
        let b = bullets(&col, 7);
        assert_eq!(b.len(), 2);
        // Newest first: the later tile's.
        assert_eq!(
            (b[0].pos, b[0].explosive, b[0].bouncing),
            (Vec2::new(176.0, 48.0), false, 1)
        );
        assert_eq!(
            (b[1].pos, b[1].explosive, b[1].bouncing),
            (Vec2::new(80.0, 48.0), true, 2)
        );
        assert_eq!(b[1].dir, Vec2::new(0.0, 1.0));
        // sin(pi/2) and cos(pi/2) in float: 1 and -4.371139e-8.
        assert_eq!(b[0].dir, Vec2::new(1.0, -4.371139e-8));
        assert!(
            b.iter()
                .all(|p| p.owner == -1 && p.life_span == -2 && p.freeze)
        );
        assert!(b.iter().all(|p| p.start_tick == 7 && p.switch.is_none()));
    }

    #[test]
    fn ids_go_tile_by_tile_and_doors_and_lights_end_at_walls() {
        // A 6 by 4 map: a turret at (4, 0); a heart at (0, 1), a door at
        // (1, 1) with a short laser right of it, a wall at (3, 1); a
        // light that does not turn at (4, 3) with a short laser right of
        // it.
        let mut tiles = vec![Tile::default(); 24];
        let at = |x: usize, y: usize| y * 6 + x;
        let entity = |e: u8| Tile {
            index: ENTITY_OFFSET + e,
            ..Tile::default()
        };
        tiles[at(4, 0)] = entity(29);
        tiles[at(0, 1)] = entity(7);
        tiles[at(1, 1)] = entity(DOOR);
        tiles[at(2, 1)] = entity(19);
        tiles[at(3, 1)] = Tile {
            index: 1,
            ..Tile::default()
        };
        tiles[at(4, 3)] = entity(15);
        tiles[at(5, 3)] = entity(19);
        let col = Collision::new(6, 4, &tiles).expect("a grid");
        // Row 0 the turret, row 1 the heart and the door, row 3 the light.
        assert_eq!(
            made(&col),
            [Made::Device, Made::Pickup, Made::Device, Made::Device]
        );
        let devices = Devices::of(&col, 0).devices;
        assert!(matches!(devices[0], Device::Turret(_)));
        let Device::Door(door) = &devices[1] else {
            panic!("a door: {devices:?}");
        };
        // A quarter turn (right) from (48, 48), 96 long, stopped by the
        // wall at x 96.
        assert_eq!(door.pos, Vec2::new(48.0, 48.0));
        assert_eq!(door.to.x, 96.0);
        assert!((door.to.y - 48.0).abs() < 1e-3);
        let Device::Light(light) = &devices[2] else {
            panic!("a light: {devices:?}");
        };
        // Made ending where it starts; 96 long, not turning or growing.
        assert_eq!(light.to, light.pos);
        assert_eq!((light.length, light.curve_length, light.speed), (96, 96, 0));
        assert_eq!(light.angular_speed, 0.0);
    }

    #[test]
    fn a_bullet_bounces_back_from_the_point_before_the_wall() {
        let mut p = bullets(
            &Collision::new(
                3,
                3,
                &[
                    Tile::default(),
                    Tile {
                        index: ENTITY_OFFSET + 33,
                        ..Tile::default()
                    },
                    Tile::default(),
                    Tile::default(),
                    Tile::default(),
                    Tile::default(),
                    Tile::default(),
                    Tile::default(),
                    Tile::default(),
                ],
            )
            .expect("a grid"),
            0,
        )
        .remove(0);
        // Down, meeting a floor at y 80: back 4 units, turned up, one on.
        p.bounce(Vec2::new(48.0, 79.5), 30);
        assert_eq!(p.start_tick, 30);
        assert_eq!(p.dir, Vec2::new(0.0, -1.0));
        assert_eq!(p.pos, Vec2::new(48.0, 74.5));
    }
}
