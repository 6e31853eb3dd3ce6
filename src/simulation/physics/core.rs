//! A character's physical core (`CCharacterCore`, `src/game/gamecore.cpp`):
//! what one tick does to position, velocity, jumps and hook, and how the
//! cores push and drag each other. Everything else a character is (freeze,
//! weapons, tiles) lives in DDRace's character (`ddrace::character`).
//!
//! The cores of a world sit in [`Cores`], one slot per client id, because
//! DDNet's loops over other characters go by client id (hook targets,
//! pushes, the path check in `Move`).

use super::Vec2;
use super::collision::{Collision, cantmove};
use super::near::{Bits, Pairs, Reused, points, same_bits};
use super::round_to_int;
use super::tuning::Tuning;
use crate::simulation::Release;
use std::cmp::Ordering;

/// The most client ids a world has (DDNet 20.1's `MAX_CLIENTS`; 16.4 had 64).
pub const MAX_CLIENTS: usize = 128;
const _: () = assert!(MAX_CLIENTS <= super::near::MAX_POINTS);

/// A character's box side and its radius for proximity (`PhysicalSize`).
pub const PHYSICAL_SIZE: f32 = 28.0;

/// Hook states (`HOOK_*`).
pub mod hook {
    /// Pulled back after a release; idle once the key is up.
    pub const RETRACTED: i32 = -1;
    /// At the character.
    pub const IDLE: i32 = 0;
    /// First tick of the retraction.
    pub const RETRACT_START: i32 = 1;
    /// Last tick of the retraction.
    pub const RETRACT_END: i32 = 3;
    /// On its way out.
    pub const FLYING: i32 = 4;
    /// Holds a wall or a player.
    pub const GRABBED: i32 = 5;
}

/// Core events of one tick (`COREEVENT_*`), as bits.
pub mod event {
    /// A jump from the ground.
    pub const GROUND_JUMP: i32 = 0x01;
    /// A jump in the air.
    pub const AIR_JUMP: i32 = 0x02;
    /// The hook was thrown.
    pub const HOOK_LAUNCH: i32 = 0x04;
    /// The hook caught a player.
    pub const HOOK_ATTACH_PLAYER: i32 = 0x08;
    /// The hook caught a wall.
    pub const HOOK_ATTACH_GROUND: i32 = 0x10;
    /// The hook hit a nohook tile.
    pub const HOOK_HIT_NOHOOK: i32 = 0x20;
    /// The hook finished retracting.
    pub const HOOK_RETRACT: i32 = 0x40;
}

/// The part of a player's input the core reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CoreInput {
    /// -1 left, 0 none, 1 right.
    pub direction: i32,
    /// Aim, relative to the character.
    pub target_x: i32,
    /// Aim, relative to the character.
    pub target_y: i32,
    /// Jump held.
    pub jump: i32,
    /// Hook held.
    pub hook: i32,
}

/// One character's core (`Copy`: a world's cores are copied as one
/// block before each tick, for the divergence report). The tuning it
/// moves with is kept beside it, by its world, and lent to each tick and
/// move: the copies stay small.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Core {
    /// The client id (`m_Id`).
    pub id: usize,
    /// Position (the box's centre).
    pub pos: Vec2,
    /// Velocity, units per tick.
    pub vel: Vec2,
    /// Where the hook is.
    pub hook_pos: Vec2,
    /// Where a flying hook goes, per tick, before its speed.
    pub hook_dir: Vec2,
    /// Where a hook that went through a teleporter measures from.
    pub hook_tele_base: Vec2,
    /// Ticks the hook has held.
    pub hook_tick: i32,
    /// One of [`hook`].
    pub hook_state: i32,
    /// The client id the hook holds, or -1.
    pub hooked_player: i32,
    /// Bit 1: this press has jumped; bit 2: the air jumps are used up.
    pub jumped: i32,
    /// Air jumps made since the ground.
    pub jumped_total: i32,
    /// Jumps allowed (2 by default; -1 one ground jump only).
    pub jumps: i32,
    /// The input's direction, as last applied.
    pub direction: i32,
    /// The aim as DDNet sends it (angle times 256).
    pub angle: i32,
    /// The hook went through a teleporter this flight.
    pub new_hook: bool,
    /// Something happened this tick that clients cannot predict
    /// (`m_Reset`; DDNet clears it when the core is resent, in the same
    /// tick).
    pub reset: bool,
    /// 1 or 2 when the last move stopped at a wall going right or left.
    pub colliding: i32,
    /// Left a wall since (for wall jumps).
    pub left_wall: bool,
    /// [`cantmove`] bits at the start of this tick.
    pub move_restrictions: i32,
    /// [`event`] bits of this tick.
    pub triggered_events: i32,
    /// Solo: neither collides nor hooks others.
    pub solo: bool,
    /// Super: collides and hooks everybody.
    pub super_: bool,
    /// Others pass through.
    pub collision_disabled: bool,
    /// Hooks no player.
    pub hook_hit_disabled: bool,
    /// The hook never lets go.
    pub endless_hook: bool,
    /// Jumps never run out.
    pub endless_jump: bool,
    /// The input the next tick uses.
    pub input: CoreInput,
}

impl Core {
    /// A core at `pos` as `Reset` leaves it (2 jumps, hook idle, aim up).
    pub fn new(id: usize, pos: Vec2) -> Core {
        Core {
            id,
            pos,
            vel: Vec2::default(),
            hook_pos: Vec2::default(),
            hook_dir: Vec2::default(),
            hook_tele_base: Vec2::default(),
            hook_tick: 0,
            hook_state: hook::IDLE,
            hooked_player: -1,
            jumped: 0,
            jumped_total: 0,
            jumps: 2,
            direction: 0,
            angle: 0,
            new_hook: false,
            reset: false,
            colliding: 0,
            left_wall: false,
            move_restrictions: 0,
            triggered_events: 0,
            solo: false,
            super_: false,
            collision_disabled: false,
            hook_hit_disabled: false,
            endless_hook: false,
            endless_jump: false,
            input: CoreInput {
                target_x: 0,
                target_y: -1,
                ..CoreInput::default()
            },
        }
    }

    /// The aim normalized (`TargetDirection`), worked out where a hook
    /// is thrown or comes out of a teleporter: a square root and a
    /// division that most ticks need not.
    fn target_dir(&self) -> Vec2 {
        normalize(Vec2::new(
            self.input.target_x as f32,
            self.input.target_y as f32,
        ))
    }

    /// `Quantize`: written to the network object and read back, so the
    /// core holds what a snapshot would say (whole positions, velocities
    /// and hook direction in 1/256).
    pub fn quantize(&mut self) {
        let q = |v: f32| round_to_int(v * 256.0) as f32 / 256.0;
        self.pos = Vec2::new(
            round_to_int(self.pos.x) as f32,
            round_to_int(self.pos.y) as f32,
        );
        self.vel = Vec2::new(q(self.vel.x), q(self.vel.y));
        self.hook_pos = Vec2::new(
            round_to_int(self.hook_pos.x) as f32,
            round_to_int(self.hook_pos.y) as f32,
        );
        self.hook_dir = Vec2::new(q(self.hook_dir.x), q(self.hook_dir.y));
    }
}

/// `normalize`: times the reciprocal of the length, (0,0) for length 0.
pub fn normalize(v: Vec2) -> Vec2 {
    let d = v.length();
    if d == 0.0 {
        return Vec2::default();
    }
    let l = 1.0 / d;
    Vec2::new(v.x * l, v.y * l)
}

/// `SaturatedAdd`: adds unless already past the limit the change points
/// to, and clamps to it.
pub fn saturated_add(min: f32, max: f32, current: f32, modifier: f32) -> f32 {
    if modifier < 0.0 {
        if current < min {
            return current;
        }
        let c = current + modifier;
        if c < min { min } else { c }
    } else {
        if current > max {
            return current;
        }
        let c = current + modifier;
        if c > max { max } else { c }
    }
}

/// `ClampVel`: no velocity towards a restricted side.
pub fn clamp_vel(restrictions: i32, mut vel: Vec2) -> Vec2 {
    if vel.x > 0.0 && restrictions & cantmove::RIGHT != 0 {
        vel.x = 0.0;
    }
    if vel.x < 0.0 && restrictions & cantmove::LEFT != 0 {
        vel.x = 0.0;
    }
    if vel.y > 0.0 && restrictions & cantmove::DOWN != 0 {
        vel.y = 0.0;
    }
    if vel.y < 0.0 && restrictions & cantmove::UP != 0 {
        vel.y = 0.0;
    }
    vel
}

/// `VelocityRamp`: 1 below `start`, else 1 / curvature^((value-start)/range).
/// The one libm call on the movement path (`powf`).
pub fn velocity_ramp(value: f32, start: f32, range: f32, curvature: f32) -> f32 {
    if value < start {
        return 1.0;
    }
    1.0 / super::fmath::powf(curvature, (value - start) / range)
}

/// The hook's drag in `TickDeferred`: `c` holds `other` at distance `d`,
/// `dir` from `other` to `c`. Out of line: few cores hook a player, and
/// inlined, the tuning's values it reads were worked out before the
/// pushes' loop on every call.
#[cold]
#[inline(never)]
fn drag(c: &mut Core, t: &Tuning, other: &mut Core, d: f32, dir: Vec2) {
    let acc = t.hook_drag_accel() * (d / t.hook_length());
    let ds = t.hook_drag_speed();
    let pushed = Vec2::new(
        saturated_add(-ds, ds, other.vel.x, acc * dir.x * 1.5),
        saturated_add(-ds, ds, other.vel.y, acc * dir.y * 1.5),
    );
    other.vel = clamp_vel(other.move_restrictions, pushed);
    let pulled = Vec2::new(
        saturated_add(-ds, ds, c.vel.x, -acc * dir.x * 0.25),
        saturated_add(-ds, ds, c.vel.y, -acc * dir.y * 0.25),
    );
    c.vel = clamp_vel(c.move_restrictions, pulled);
}

/// `closest_point_on_line`, `None` for a segment of length 0.
pub fn closest_point_on_line(a: Vec2, b: Vec2, p: Vec2) -> Option<Vec2> {
    let ab = b - a;
    let sq = ab.dot(ab);
    if sq > 0.0 {
        let t = (p - a).dot(ab) / sq;
        Some(a + ab * t.clamp(0.0, 1.0))
    } else {
        None
    }
}

/// Who may touch whom (`CTeamsCore`): DDRace teams and solo.
#[derive(Clone, Debug)]
pub struct Teams {
    /// Each client's DDRace team (0 = none).
    pub team: Vec<i32>,
    /// Each client's solo flag.
    pub solo: Vec<bool>,
    /// The team that touches everybody.
    pub super_team: i32,
}

impl Teams {
    /// Everybody in team 0, nobody solo.
    pub fn new(release: Release) -> Teams {
        Teams {
            team: vec![0; MAX_CLIENTS],
            solo: vec![false; MAX_CLIENTS],
            super_team: match release {
                Release::Ddnet16_4 => 64,
                Release::Ddnet20_1 => 128,
            },
        }
    }

    /// `CanCollide`.
    #[inline]
    pub fn can_collide(&self, a: usize, b: usize) -> bool {
        if self.team[a] == self.super_team || self.team[b] == self.super_team || a == b {
            return true;
        }
        if self.solo[a] || self.solo[b] {
            return false;
        }
        self.team[a] == self.team[b]
    }

    /// `CanKeepHook`.
    pub fn can_keep_hook(&self, a: usize, b: usize) -> bool {
        if self.team[a] == self.super_team || self.team[b] == self.super_team || a == b {
            return true;
        }
        self.team[a] == self.team[b]
    }
}

/// Every character core of a world, by client id (`CWorldCore`).
#[derive(Clone, Debug)]
pub struct Cores {
    /// The core of each client id that has a character.
    pub slots: Vec<Option<Core>>,
    /// Teams and solo.
    pub teams: Teams,
    /// The map's switches in each team (none until the world sets them).
    pub switchers: super::switchers::Switchers,
    /// Which rules.
    pub release: Release,
    /// `sv_old_teleport_hook`: a hook goes through plain teleporters.
    pub old_tele_hook: bool,
    /// The world's random generator (`CWorldCore::m_pPrng`), which
    /// chooses among a teleporter's outs; `None` when the file does not
    /// say how it was seeded.
    pub prng: Option<super::prng::Prng>,
    /// Choices among several teleporter outs made without a generator:
    /// client ids (the first out was taken; unmodelled).
    pub unseeded_choices: Vec<usize>,
    /// Every core's position bucketed, while the world keeps it in step
    /// ([`Cores::gather`]).
    near: Positions,
    /// Each client id's last aim and its [`angle`] (an `atan2`; an aim
    /// changes far less often than every tick).
    angles: Vec<((i32, i32), i32)>,
}

/// Every core's position, bucketed for the loops over the other cores:
/// they look only at the cores that may be near. Kept in step only
/// between [`Cores::gather`] and [`Cores::scatter`], while every move of
/// a core is followed by [`Cores::regather`]; otherwise the loops test
/// every core.
#[derive(Clone, Debug, Default)]
struct Positions {
    near: Reused<Pairs>,
    in_step: bool,
}

/// The slots of every core but the one ticking or moving, which DDNet's
/// loops over the world's characters find too and skip (its slot reads
/// as empty here).
struct Others<'a> {
    /// The slots before the core's.
    before: &'a mut [Option<Core>],
    /// The slots after the core's.
    after: &'a mut [Option<Core>],
}

impl Others<'_> {
    /// No other core (a core alone).
    fn none() -> Others<'static> {
        Others {
            before: &mut [],
            after: &mut [],
        }
    }

    fn get(&self, i: usize) -> Option<&Core> {
        let cid = self.before.len();
        match i.checked_sub(cid + 1) {
            Some(j) => self.after.get(j)?.as_ref(),
            None => self.before.get(i)?.as_ref(),
        }
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut Core> {
        let cid = self.before.len();
        match i.checked_sub(cid + 1) {
            Some(j) => self.after.get_mut(j)?.as_mut(),
            None => self.before.get_mut(i)?.as_mut(),
        }
    }

    /// Every slot by client id, the core's own empty.
    fn enumerate(&self) -> impl Iterator<Item = (usize, Option<&Core>)> {
        let before = self.before.iter().map(Option::as_ref);
        let after = self.after.iter().map(Option::as_ref);
        before.chain(std::iter::once(None)).chain(after).enumerate()
    }
}

impl Cores {
    /// No characters.
    pub fn new(release: Release) -> Cores {
        Cores {
            slots: vec![None; MAX_CLIENTS],
            teams: Teams::new(release),
            switchers: Default::default(),
            release,
            old_tele_hook: false,
            prng: None,
            unseeded_choices: Vec::new(),
            near: Positions::default(),
            angles: vec![((0, 0), angle(0, 0)); MAX_CLIENTS],
        }
    }

    /// Copies every core's position for the loops over other cores, until
    /// [`Cores::scatter`]. Between the two, whoever moves a core (or puts
    /// one in a slot) calls [`Cores::regather`] for it before the next
    /// core ticks or moves.
    pub fn gather(&mut self) {
        let near = self.near.near.get_mut();
        // At most MAX_POINTS (asserted above): no bounds checks.
        for (cid, c) in self.slots.iter().take(super::near::MAX_POINTS).enumerate() {
            near.set(cid, c.as_ref().map(|c| c.pos));
        }
        self.near.in_step = true;
    }

    /// The core of `cid` moved (or came or went): its copied position
    /// follows.
    pub fn regather(&mut self, cid: usize) {
        if self.near.in_step && cid < MAX_CLIENTS {
            let p = self.slots[cid].as_ref().map(|c| c.pos);
            self.near.near.get_mut().set(cid, p);
        }
    }

    /// The copy of the positions is no longer kept in step.
    pub fn scatter(&mut self) {
        self.near.in_step = false;
    }

    /// Every core's position by client id while kept in step (a core's
    /// own bits; an empty slot's stale): a far candidate is skipped on
    /// this packed copy, its core not read.
    fn positions(&self) -> Option<&[Vec2; MAX_CLIENTS]> {
        let near = self.near.near.get().filter(|_| self.near.in_step)?;
        Some(near.near().at())
    }

    /// The client ids of the cores that may be within `sqrt(limit)` of
    /// `p` (`delta.dot(delta) > limit` does not hold), and `also`
    /// whatever its distance, as bits (their [`points`] in order; not the
    /// core's own). A superset: the caller tests each core again, and
    /// takes them without a list in between.
    fn near_ids(&self, others: &Others, p: Vec2, limit: f32, also: i32) -> Bits {
        let near = self.near.near.get().filter(|_| self.near.in_step);
        let Some(near) = near else {
            // Not kept in step: every other core.
            return others
                .enumerate()
                .filter(|(_, c)| c.is_some())
                .fold(0, |bits, (i, _)| bits | 1 << i);
        };
        // At the core's own place, within the pairs' reach (the pushes,
        // a short move's path): the kept pairs, no question. Not the core
        // itself (its slot reads as empty to the loops): its row never
        // holds it, the question's answer may. The bits are set and
        // cleared only where needed (a `u128` bit at a variable place is
        // some ten instructions, and most cores hook nobody).
        let own = others.before.len();
        let bit = |i: usize| if i < MAX_CLIENTS { 1 << i } else { 0 };
        let mut found = match near.within(own, p, limit) {
            Some(found) => found,
            None => near.near().candidates_apart(p, limit) & !bit(own),
        };
        if let Ok(also) = usize::try_from(also)
            && also != own
        {
            found |= bit(also);
        }
        debug_assert!(
            others.enumerate().all(|(i, c)| {
                c.as_ref().is_none_or(|c| {
                    let delta = p - c.pos;
                    delta.dot(delta) > limit || found & 1 << i != 0
                })
            }),
            "a near core is not a candidate (moved without Cores::regather?)"
        );
        found
    }

    /// `RandomOr0(n)` for `cid`: no draw for one out; without a
    /// generator the first out, reported.
    pub fn random_or_0(&mut self, cid: usize, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        match self.prng.as_mut() {
            Some(p) => usize::try_from(p.random_or_0(n as i32)).unwrap_or(0),
            None => {
                self.unseeded_choices.push(cid);
                0
            }
        }
    }

    /// `CCharacterCore::Tick(true, deferred)` for the core of `cid`,
    /// which moves with tuning `t`.
    pub fn tick(
        &mut self,
        cid: usize,
        col: &Collision,
        t: &Tuning,
        use_input: bool,
        deferred: bool,
    ) {
        self.with_core(cid, |cores, c, others| {
            // DDNet clears `m_Reset` when it resends the core, which it
            // always does in the same tick's `TickDeferred`: so the flag
            // holds the tick it was set in.
            c.reset = false;
            cores.tick_core(c, t, others, col, use_input);
            if deferred {
                cores.tick_deferred_core(c, t, others);
            }
        });
    }

    /// The dead-reckoning step of `CCharacter::TickDeferred`
    /// (`m_ReckoningCore`): `c` ticked without input (`Tick(false)`),
    /// moved and quantized alone, in a world of no other character, as a
    /// client predicts a core it was sent. `self` is that empty world: a
    /// [`Cores::new`] of the same release that holds no core; `t` the
    /// tuning it moves with.
    pub fn tick_alone(&mut self, c: &mut Core, t: &Tuning, col: &Collision) {
        let others = &mut Others::none();
        self.tick_core(c, t, others, col, false);
        self.tick_deferred_core(c, t, others);
        self.move_one(c, t, others, col);
        c.quantize();
    }

    /// `CCharacterCore::TickDeferred` alone (with `sv_no_weak_hook`).
    pub fn tick_deferred(&mut self, cid: usize, t: &Tuning) {
        self.with_core(cid, |cores, c, others| {
            cores.tick_deferred_core(c, t, others)
        });
    }

    /// `CCharacterCore::Move` for the core of `cid`.
    pub fn move_core(&mut self, cid: usize, col: &Collision, t: &Tuning) {
        self.with_core(cid, |cores, c, others| cores.move_one(c, t, others, col));
    }

    /// Runs `f` on the core of `cid` (if any) and the other cores, the
    /// slots lent out meanwhile (not the core moved out of its slot and
    /// back).
    fn with_core(&mut self, cid: usize, f: impl FnOnce(&mut Cores, &mut Core, &mut Others)) {
        let mut slots = std::mem::take(&mut self.slots);
        if cid < slots.len() {
            let (before, rest) = slots.split_at_mut(cid);
            if let Some((Some(c), after)) = rest.split_first_mut() {
                f(self, c, &mut Others { before, after });
            }
        }
        self.slots = slots;
    }

    /// `IsSwitchActiveCb`: whether a door of switch `number` stops the
    /// core of `cid` (its switch is on in its team, not the super team).
    pub fn door_closed(&self, cid: usize, number: u8) -> bool {
        let team = self.teams.team.get(cid).copied().unwrap_or(0);
        team != self.teams.super_team && self.switchers.is_on(number, team)
    }

    /// [`angle`] of `aim`, remembered for `cid`.
    fn angle_of(&mut self, cid: usize, aim: (i32, i32)) -> i32 {
        match self.angles.get_mut(cid) {
            Some((last, a)) if *last == aim => *a,
            Some(kept) => {
                *kept = (aim, angle(aim.0, aim.1));
                kept.1
            }
            None => angle(aim.0, aim.1),
        }
    }

    /// Whether `c` skips `other` in the hook and push loops (teams, solo).
    fn skips(&self, c: &Core, other: &Core) -> bool {
        !(c.super_ || other.super_)
            && (!self.teams.can_collide(other.id, c.id) || other.solo || c.solo)
    }

    fn tick_core(
        &mut self,
        c: &mut Core,
        t: &Tuning,
        others: &Others,
        col: &Collision,
        use_input: bool,
    ) {
        // Doors only with input (`IsSwitchActiveCb`; none without).
        c.move_restrictions = match use_input {
            true => col.move_restrictions_doors(c.pos, 18.0, None, |n| self.door_closed(c.id, n)),
            false => col.move_restrictions(c.pos, 18.0, None),
        };
        c.triggered_events = 0;
        let grounded = col.is_on_ground(c.pos, PHYSICAL_SIZE);
        c.vel.y += t.gravity();
        let (max_speed, accel, friction) = if grounded {
            (
                t.ground_control_speed(),
                t.ground_control_accel(),
                t.ground_friction(),
            )
        } else {
            (
                t.air_control_speed(),
                t.air_control_accel(),
                t.air_friction(),
            )
        };
        if use_input {
            c.direction = c.input.direction;
            c.angle = self.angle_of(c.id, (c.input.target_x, c.input.target_y));
            if c.input.jump != 0 {
                if c.jumped & 1 == 0 {
                    if grounded && (c.jumped & 2 == 0 || c.jumps != 0) {
                        c.triggered_events |= event::GROUND_JUMP;
                        c.vel.y = -t.ground_jump_impulse();
                        c.jumped |= if c.jumps > 1 { 1 } else { 3 };
                        c.jumped_total = 0;
                    } else if c.jumped & 2 == 0 {
                        c.triggered_events |= event::AIR_JUMP;
                        c.vel.y = -t.air_jump_impulse();
                        c.jumped |= 3;
                        c.jumped_total += 1;
                    }
                }
            } else {
                c.jumped &= !1;
            }
            if c.input.hook != 0 {
                if c.hook_state == hook::IDLE {
                    c.hook_state = hook::FLYING;
                    let target_dir = c.target_dir();
                    c.hook_pos = c.pos + target_dir * PHYSICAL_SIZE * 1.5;
                    c.hook_dir = target_dir;
                    c.hooked_player = -1;
                    c.hook_tick = (50.0f32 * (1.25 - t.hook_duration())) as i32;
                    c.triggered_events |= event::HOOK_LAUNCH;
                }
            } else {
                c.hooked_player = -1;
                c.hook_state = hook::IDLE;
                c.hook_pos = c.pos;
            }
        }
        if grounded {
            c.jumped &= !2;
            c.jumped_total = 0;
        }
        if c.direction < 0 {
            c.vel.x = saturated_add(-max_speed, max_speed, c.vel.x, -accel);
        }
        if c.direction > 0 {
            c.vel.x = saturated_add(-max_speed, max_speed, c.vel.x, accel);
        }
        if c.direction == 0 {
            c.vel.x *= friction;
        }

        if c.hook_state == hook::IDLE {
            c.hooked_player = -1;
            c.hook_pos = c.pos;
        } else if c.hook_state >= hook::RETRACT_START && c.hook_state < hook::RETRACT_END {
            c.hook_state += 1;
        } else if c.hook_state == hook::RETRACT_END {
            c.triggered_events |= event::HOOK_RETRACT;
            c.hook_state = hook::RETRACTED;
        } else if c.hook_state == hook::FLYING {
            self.fly_hook(c, t, others, col);
        }

        if c.hook_state == hook::GRABBED {
            if c.hooked_player != -1 {
                let hooked = c.hooked_player as usize;
                match others.get(hooked) {
                    Some(other) if self.teams.can_keep_hook(c.id, other.id) => {
                        c.hook_pos = other.pos;
                    }
                    _ => {
                        c.hooked_player = -1;
                        c.hook_state = hook::RETRACTED;
                        c.hook_pos = c.pos;
                    }
                }
            }
            if c.hooked_player == -1
                && (c.hook_pos - c.pos).compare_length(1.0, 46.0) == Some(Ordering::Greater)
            {
                let mut hv = normalize(c.hook_pos - c.pos) * t.hook_drag_accel();
                if hv.y > 0.0 {
                    hv.y *= 0.3;
                }
                if (hv.x < 0.0 && c.direction < 0) || (hv.x > 0.0 && c.direction > 0) {
                    hv.x *= 0.95;
                } else {
                    hv.x *= 0.75;
                }
                let nv = c.vel + hv;
                let l = nv.length();
                if l < t.hook_drag_speed() || l < c.vel.length() {
                    c.vel = nv;
                }
            }
            c.hook_tick += 1;
            if c.hooked_player != -1
                && (c.hook_tick > 50 + 50 / 5 || others.get(c.hooked_player as usize).is_none())
            {
                c.hooked_player = -1;
                c.hook_state = hook::RETRACTED;
                c.hook_pos = c.pos;
            }
        }
    }

    /// The flying hook's step: length, walls, players.
    fn fly_hook(&mut self, c: &mut Core, t: &Tuning, others: &Others, col: &Collision) {
        let base = if c.new_hook { c.hook_tele_base } else { c.pos };
        let mut new_pos = c.hook_pos + c.hook_dir * t.hook_fire_speed();
        if (base - new_pos).compare_length(1.0, t.hook_length()) == Some(Ordering::Greater) {
            c.hook_state = hook::RETRACT_START;
            // 16.4 measured from the teleporter's base but clamped around
            // the character.
            let around = match self.release {
                Release::Ddnet16_4 => c.pos,
                Release::Ddnet20_1 => base,
            };
            new_pos = around + normalize(new_pos - around) * t.hook_length();
            c.reset = true;
        }
        let (mut hit_ground, mut retract, mut through_tele) = (false, false, 0u8);
        let (hit, at, tele) = col.intersect_hook(c.hook_pos, new_pos, self.old_tele_hook);
        new_pos = at;
        if hit != 0 {
            match hit {
                super::collision::TILE_NOHOOK => retract = true,
                super::collision::tile::TELEINHOOK => through_tele = tele,
                _ => hit_ground = true,
            }
            c.reset = true;
        }
        let may_hook_players = match self.release {
            Release::Ddnet16_4 => true,
            Release::Ddnet20_1 => c.hook_state == hook::FLYING || !c.new_hook,
        };
        if !c.hook_hit_disabled && t.player_hooking() != 0.0 && may_hook_players {
            let mut best = 0.0f32;
            for (_, other) in others.enumerate() {
                let Some(other) = other else {
                    continue;
                };
                if other.id == c.id || self.skips(c, other) {
                    continue;
                }
                if let Some(p) = closest_point_on_line(c.hook_pos, new_pos, other.pos)
                    && other.pos.distance(p) < PHYSICAL_SIZE + 2.0
                    && (c.hooked_player == -1 || c.hook_pos.distance(other.pos) < best)
                {
                    c.triggered_events |= event::HOOK_ATTACH_PLAYER;
                    c.hook_state = hook::GRABBED;
                    c.hooked_player = other.id as i32;
                    best = c.hook_pos.distance(other.pos);
                }
            }
        }
        if c.hook_state == hook::FLYING {
            if hit_ground {
                c.triggered_events |= event::HOOK_ATTACH_GROUND;
                c.hook_state = hook::GRABBED;
            } else if retract {
                c.triggered_events |= event::HOOK_HIT_NOHOOK;
                c.hook_state = hook::RETRACT_START;
            }
            let outs = match through_tele {
                0 => &[][..],
                n => &col.tele_outs[usize::from(n - 1)][..],
            };
            if !outs.is_empty() {
                c.triggered_events = 0;
                c.hooked_player = -1;
                c.new_hook = true;
                let out = outs[self.random_or_0(c.id, outs.len())];
                let target_dir = c.target_dir();
                c.hook_pos = out + target_dir * PHYSICAL_SIZE * 1.5;
                c.hook_dir = target_dir;
                c.hook_tele_base = c.hook_pos;
            } else {
                c.hook_pos = new_pos;
            }
        }
    }

    fn tick_deferred_core(&mut self, c: &mut Core, t: &Tuning, others: &mut Others) {
        let found = self.near_ids(others, c.pos, 36.0 * 36.0, c.hooked_player);
        // Most cores have nobody near: what the loop works out before its
        // first turn (the tuning's values it reads) is skipped for them.
        if found != 0 {
            self.push_and_drag(c, t, others, found);
        }
        if c.hook_state != hook::FLYING {
            c.new_hook = false;
        }
        if c.vel.compare_length(1.0, 6000.0) == Some(Ordering::Greater) {
            c.vel = normalize(c.vel) * 6000.0;
        }
    }

    /// The loop of `TickDeferred` over the other cores, those of `found`.
    #[inline(never)]
    fn push_and_drag(&self, c: &mut Core, t: &Tuning, others: &mut Others, found: Bits) {
        // Far apart and not hooked: neither a push (below 35) nor a drag
        // can happen; skipping changes nothing but the time. `found` is
        // mostly the kept pairs, each within: no test on the packed
        // positions first.
        // (Neither changes in the loop.)
        let (pos, hooked) = (c.pos, c.hooked_player);
        let far = |i: usize, at: Vec2| {
            let delta = pos - at;
            hooked != i as i32 && delta.dot(delta) > 36.0 * 36.0
        };
        for i in points(found) {
            let Some(other) = others.get(i) else {
                continue;
            };
            if far(i, other.pos) {
                continue;
            }
            if other.id == c.id || !self.teams.can_collide(c.id, i) {
                continue;
            }
            if !(c.super_ || other.super_) && (c.solo || other.solo) {
                continue;
            }
            let d = c.pos.distance(other.pos);
            if d <= 0.0 {
                continue;
            }
            let dir = normalize(c.pos - other.pos);
            let can_collide = (c.super_ || other.super_)
                || (!c.collision_disabled
                    && !other.collision_disabled
                    && t.player_collision() != 0.0);
            if can_collide && d < PHYSICAL_SIZE * 1.25 {
                let a = PHYSICAL_SIZE * 1.45 - d;
                let mut v = 0.5f32;
                if c.vel.length() > 0.0001 {
                    v = 1.0 - (normalize(c.vel).dot(dir) + 1.0) / 2.0;
                }
                c.vel = c.vel + dir * a * (v * 0.75);
                c.vel = c.vel * 0.85;
            }
            if !c.hook_hit_disabled
                && c.hooked_player == i as i32
                && t.player_hooking() != 0.0
                && d > PHYSICAL_SIZE * 1.5
            {
                drag(c, t, others.get_mut(i).expect("checked above"), d, dir);
            }
        }
    }

    fn move_one(&mut self, c: &mut Core, t: &Tuning, others: &Others, col: &Collision) {
        // Below the ramp's start (most moves) the ramp is 1: known
        // without the root.
        let start = t.velramp_start();
        let ramp = match c.vel.compare_length(50.0, start) {
            Some(Ordering::Less) => 1.0,
            _ => velocity_ramp(
                c.vel.length() * 50.0,
                start,
                t.velramp_range(),
                t.velramp_curvature(),
            ),
        };
        c.vel.x *= ramp;
        let mut new_pos = c.pos;
        let old_vel = c.vel;
        let elasticity = Vec2::new(t.ground_elasticity_x(), t.ground_elasticity_y());
        let grounded = col.move_box(
            &mut new_pos,
            &mut c.vel,
            Vec2::new(PHYSICAL_SIZE, PHYSICAL_SIZE),
            elasticity,
        );
        if grounded && self.release == Release::Ddnet20_1 {
            c.jumped &= !2;
            c.jumped_total = 0;
        }
        c.colliding = 0;
        if c.vel.x < 0.001 && c.vel.x > -0.001 {
            if old_vel.x > 0.0 {
                c.colliding = 1;
            } else if old_vel.x < 0.0 {
                c.colliding = 2;
            }
        } else {
            c.left_wall = true;
        }
        c.vel.x *= 1.0 / ramp;

        if c.super_ || (t.player_collision() != 0.0 && !c.collision_disabled && !c.solo) {
            let d = c.pos.distance(new_pos);
            if d > 0.0 {
                // Only a core nearer than the path's length plus a body to
                // the start can be touched on the way (each point of the
                // path is within `d` of it): the others are skipped, which
                // changes nothing but the time.
                let reach = d + PHYSICAL_SIZE + 1.0;
                // Surely out of reach (the square past the reach's by a
                // margin for rounding): no square root taken.
                let far = reach * reach * 1.001;
                // As bits (a list would be zeroed first, every move).
                let mut near: Bits = 0;
                let maybe = self.near_ids(others, c.pos, far, -1);
                // Far: tested on the packed positions if kept, then on the
                // core (the same bits).
                let beyond = |at: Vec2| {
                    let delta = c.pos - at;
                    delta.dot(delta) > far
                };
                let at = self.positions();
                for o in points(maybe) {
                    if at.is_some_and(|at| beyond(at[o])) {
                        continue;
                    }
                    let Some(other) = others.get(o) else {
                        continue;
                    };
                    debug_assert!(at.is_none_or(|at| same_bits(at[o], other.pos)));
                    if beyond(other.pos) {
                        continue;
                    }
                    if other.id == c.id
                        || matches!(
                            (c.pos - other.pos).compare_length(1.0, reach),
                            Some(Ordering::Greater | Ordering::Equal)
                        )
                        || !(other.super_ || c.super_)
                            && (c.solo
                                || other.solo
                                || other.collision_disabled
                                || !self.teams.can_collide(c.id, other.id))
                    {
                        continue;
                    }
                    if other.id < MAX_CLIENTS {
                        near |= 1 << other.id;
                    }
                }
                let end = (d + 1.0) as i32;
                let mut last = c.pos;
                for i in 0..end {
                    if near == 0 {
                        break;
                    }
                    let a = i as f32 / d;
                    let p = c.pos.mix(new_pos, a);
                    for o in points(near) {
                        let Some(other) = others.get(o) else {
                            continue;
                        };
                        let dd = p.distance(other.pos);
                        if dd < PHYSICAL_SIZE {
                            if a > 0.0 {
                                c.pos = last;
                            } else if new_pos.distance(other.pos) > dd {
                                c.pos = new_pos;
                            }
                            return;
                        }
                    }
                    last = p;
                }
            }
        }
        c.pos = new_pos;
    }
}

/// The aim angle a core sends (`m_Angle`): `atan2` of the integer aim
/// in double, stored as float, turned to [−π/2, 3π/2) and times 256.
pub fn angle(target_x: i32, target_y: i32) -> i32 {
    const PI: f32 = std::f32::consts::PI;
    let a = super::fmath::atan2(target_y as f64, target_x as f64) as f32;
    if a < -(PI / 2.0) {
        ((a + 2.0 * PI) * 256.0) as i32
    } else {
        (a * 256.0) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::Tile;

    /// An open 20x20 map with a floor on row 10.
    fn floor() -> Collision {
        let tiles: Vec<Tile> = (0..400)
            .map(|i| Tile {
                index: if i / 20 == 10 { 1 } else { 0 },
                ..Tile::default()
            })
            .collect();
        Collision::new(20, 20, &tiles).expect("a map")
    }

    fn world_with(pos: Vec2) -> Cores {
        let mut cores = Cores::new(Release::Ddnet20_1);
        cores.slots[0] = Some(Core::new(0, pos));
        cores
    }

    /// One tick of core 0: tick, move, quantize.
    fn step(cores: &mut Cores, col: &Collision) -> Core {
        let t = Tuning::ddrace(Release::Ddnet20_1);
        cores.tick(0, col, &t, true, true);
        cores.move_core(0, col, &t);
        let c = cores.slots[0].as_mut().expect("a core");
        c.quantize();
        *c
    }

    /// The loops over other cores (`TickDeferred`'s pushes and drag,
    /// `Move`'s path check) asked through the kept pairs and the buckets
    /// (`gather`, then `regather` after each core's tick and move, as the
    /// world's tick does) against the same loops over every other core
    /// (never gathered): a crowd, some cores hooking another near or far,
    /// some fast (paths past the pairs' reach), some solo or passing
    /// through; after two ticks every core is the same, bit for bit.
    #[test]
    fn the_near_cores_loops_find_what_the_loops_over_every_core_find() {
        fn property(cores: Vec<(u8, i16, i16, i8, i8, u8)>) -> bool {
            const N: usize = 40;
            let col = floor();
            let t = &Tuning::ddrace(Release::Ddnet20_1);
            let mut plain = Cores::new(Release::Ddnet20_1);
            for (cid, x, y, vx, vy, kind) in cores.into_iter().take(32) {
                let cid = usize::from(cid) % N;
                // Some 160 by 100 units above the floor, in quarters.
                let at = |v: i16, side: i16| 200.0 + f32::from(v % (side * 4)) / 4.0;
                let mut c = Core::new(cid, Vec2::new(at(x, 160), at(y, 100)));
                let speed = if kind & 1 != 0 { 1.0 } else { 1.0 / 16.0 };
                c.vel = Vec2::new(f32::from(vx) * speed, f32::from(vy) * speed);
                c.input.direction = i32::from(kind >> 1 & 3) - 1;
                if kind & 8 != 0 {
                    c.input.hook = 1;
                    c.hook_state = hook::GRABBED;
                    c.hooked_player = ((cid + 1 + usize::from(kind >> 4)) % N) as i32;
                }
                c.solo = kind & 0xc0 == 0xc0;
                c.collision_disabled = kind & 0xc0 == 0x80;
                plain.teams.solo[cid] = c.solo;
                plain.slots[cid] = Some(c);
            }
            let mut kept = plain.clone();
            for _ in 0..2 {
                kept.gather();
                for cid in 0..N {
                    plain.tick(cid, &col, t, true, true);
                    kept.tick(cid, &col, t, true, true);
                    kept.regather(cid);
                }
                for cid in 0..N {
                    for cores in [&mut plain, &mut kept] {
                        cores.move_core(cid, &col, t);
                        if let Some(c) = cores.slots[cid].as_mut() {
                            c.quantize();
                        }
                    }
                    kept.regather(cid);
                }
                kept.scatter();
            }
            format!("{:?}", plain.slots) == format!("{:?}", kept.slots)
        }
        crate::testing::qc()
            .tests(1000)
            .quickcheck(property as fn(Vec<(u8, i16, i16, i8, i8, u8)>) -> bool);
    }

    #[test]
    fn a_fall_from_rest_gains_half_a_unit_a_tick_and_rounds_halves_away() {
        // Gravity 0.5: velocities 0.5, 1, 1.5, 2, 2.5; positions 100.5 →
        // 101 (half away from zero), 102, 103.5 → 104, 106, 108.5 → 109.
        let col = floor();
        let mut cores = world_with(Vec2::new(100.0, 100.0));
        let ys: Vec<f32> = (0..5).map(|_| step(&mut cores, &col).pos.y).collect();
        assert_eq!(ys, [101.0, 102.0, 104.0, 106.0, 109.0]);
        assert_eq!(cores.slots[0].as_ref().unwrap().vel.y, 2.5);
    }

    #[test]
    fn a_ground_jump_replaces_the_fall_speed_and_an_air_jump_follows() {
        // On the floor (row 10 starts at y 320; the box is 28 high and its
        // corners are rounded, so 305 stands on it, 306 would touch it):
        // jump sets vel.y to -13.2, which quantizes to -3379/256.
        let col = floor();
        let mut cores = world_with(Vec2::new(100.0, 305.0));
        cores.slots[0].as_mut().unwrap().input.jump = 1;
        let c = step(&mut cores, &col);
        assert_eq!(c.vel.y, -3379.0 / 256.0);
        assert_eq!(c.pos.y, 292.0); // 305 - 13.2 = 291.8
        assert_eq!(c.jumped, 1);
        // Release and press again in the air: the air jump (-12).
        cores.slots[0].as_mut().unwrap().input.jump = 0;
        step(&mut cores, &col);
        cores.slots[0].as_mut().unwrap().input.jump = 1;
        let c = step(&mut cores, &col);
        assert_eq!(c.vel.y, -12.0);
        assert_eq!(c.jumped, 3);
        assert_eq!(c.jumped_total, 1);
    }

    #[test]
    fn walking_accelerates_to_the_ground_speed_and_no_further() {
        let col = floor();
        let mut cores = world_with(Vec2::new(100.0, 305.0));
        cores.slots[0].as_mut().unwrap().input.direction = 1;
        let xs: Vec<f32> = (0..7).map(|_| step(&mut cores, &col).vel.x).collect();
        // Ground accel 2, top speed 10.
        assert_eq!(xs, [2.0, 4.0, 6.0, 8.0, 10.0, 10.0, 10.0]);
    }

    #[test]
    fn saturated_add_keeps_a_speed_already_past_the_limit() {
        assert_eq!(saturated_add(-10.0, 10.0, 9.0, 2.0), 10.0);
        assert_eq!(saturated_add(-10.0, 10.0, 12.0, 2.0), 12.0);
        assert_eq!(saturated_add(-10.0, 10.0, 12.0, -2.0), 10.0);
        assert_eq!(saturated_add(-10.0, 10.0, -11.0, -2.0), -11.0);
    }

    #[test]
    fn the_aim_angle_is_turned_into_minus_half_pi_to_three_halves_pi() {
        assert_eq!(angle(1, 0), 0);
        // atan2 = -π/2 exactly is not below -π/2: (int)(-402.12).
        assert_eq!(angle(0, -1), -402);
        // π·256 = 804.25.
        assert_eq!(angle(-1, 0), 804);
        // -3π/4 + 2π = 5π/4; ·256 = 1005.31.
        assert_eq!(angle(-1, -1), 1005);
    }

    #[test]
    fn the_velocity_ramp_starts_at_its_start_and_halves_per_curvature() {
        assert_eq!(velocity_ramp(549.0, 550.0, 2000.0, 1.4), 1.0);
        assert_eq!(velocity_ramp(550.0, 550.0, 2000.0, 1.4), 1.0);
        assert_eq!(velocity_ramp(2550.0, 550.0, 2000.0, 1.4), 1.0 / 1.4f32);
    }
}
