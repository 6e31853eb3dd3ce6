//! One tick of the world in DDNet's order (`CGameWorld::Tick`, each
//! character's `Tick` and `TickDeferred`, the players' tick): inputs,
//! weapons firing, entities, deaths.

use super::*;
use crate::simulation::ddrace::effects::sound;
use crate::simulation::ddrace::map_entities;
use crate::simulation::physics::collision::cantmove;
use crate::simulation::physics::near::points;
use std::cmp::Ordering;

impl World {
    /// `OnPredictedEarlyInput`: flags, spawning by fire, firing.
    pub(super) fn early_input(&mut self, cid: usize, input: PlayerInput) {
        let Some(p) = self.players[cid].as_mut() else {
            return;
        };
        p.player_flags = input.player_flags;
        let team = p.team;
        if self.chars[cid].is_none() && team != TEAM_SPECTATORS && input.fire & 1 != 0 {
            p.spawning = true;
        }
        if input.player_flags & PLAYERFLAG_CHATTING != 0 || p.pause != Pause::None {
            return;
        }
        if self.release == Release::Ddnet20_1 && input.player_flags & PLAYERFLAG_SPEC_CAM != 0 {
            return;
        }
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        // Made in a local (see `predicted_input`).
        let mut input = input;
        if input.target_x == 0 && input.target_y == 0 {
            input.target_y = -1;
        }
        ch.latest_prev_input = ch.latest_input;
        ch.latest_input = input;
        ch.num_inputs += 1;
        if ch.num_inputs > 1 && team != TEAM_SPECTATORS {
            if ch.handle_weapon_switch() {
                let pos = ch.pos;
                self.effect(Effect::sound(pos, sound::WEAPON_SWITCH));
            }
            self.fire_weapon(cid);
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.latest_prev_input = ch.latest_input;
        }
    }

    /// `OnPredictedInput`: the input the character moves with.
    pub(super) fn predicted_input(&mut self, cid: usize, input: PlayerInput) {
        let Some(p) = self.players[cid].as_ref() else {
            return;
        };
        if p.player_flags & PLAYERFLAG_CHATTING != 0
            && input.player_flags & PLAYERFLAG_CHATTING != 0
            || p.pause != Pause::None
        {
            return;
        }
        if self.release == Release::Ddnet20_1 && input.player_flags & PLAYERFLAG_SPEC_CAM != 0 {
            return;
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            // Made in a local, then copied: a copy of a field just written
            // in part waits for the write to retire.
            let mut input = input;
            if input.target_x == 0 && input.target_y == 0 {
                input.target_y = -1;
            }
            ch.input = input;
            ch.saved_input = input;
        }
    }

    /// `FireWeapon`: a queued switch, then the shot, with its sound.
    #[inline]
    pub(super) fn fire_weapon(&mut self, cid: usize) {
        // Nearly every tick: the input handled again, fire not held.
        if self.chars[cid].as_ref().is_none_or(|c| c.fires_nothing()) {
            return;
        }
        self.fire_weapon_in_full(cid);
    }

    /// [`World::fire_weapon`] without the test for nothing to do (not
    /// inlined: the test is, without this one's prologue).
    #[inline(never)]
    fn fire_weapon_in_full(&mut self, cid: usize) {
        let tick = self.tick;
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        if ch.reload_timer != 0 {
            return;
        }
        if ch.do_weapon_switch() {
            let pos = ch.pos;
            self.effect(Effect::sound(pos, sound::WEAPON_SWITCH));
        }
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        let aim = Vec2::new(
            ch.latest_input.target_x as f32,
            ch.latest_input.target_y as f32,
        );
        let active = ch.active_weapon;
        let full_auto = matches!(active, weapon::GRENADE | weapon::SHOTGUN | weapon::LASER)
            || ch.jetpack && active == weapon::GUN
            || ch.frozen_last_tick;
        let mut will_fire = presses(ch.latest_prev_input.fire, ch.latest_input.fire) > 0;
        if full_auto
            && ch.latest_input.fire & 1 != 0
            && active >= 0
            && ch.weapons[active as usize].ammo != 0
        {
            will_fire = true;
        }
        if !will_fire {
            return;
        }
        if ch.freeze_time != 0 {
            // A cry at most once a second, and not while fire is held.
            if ch.pain_sound_timer <= 0 && ch.latest_prev_input.fire & 1 == 0 {
                ch.pain_sound_timer = 50;
                let pos = ch.pos;
                self.effect(Effect::sound(pos, sound::PLAYER_PAIN_LONG));
            }
            return;
        }
        if active < 0 || ch.weapons[active as usize].ammo == 0 {
            return;
        }
        // Only for a shot: nearly every tick fires nothing.
        let dir = normalize(aim);
        let start = ch.pos + dir * PHYSICAL_SIZE * 0.75;
        let shooter_pos = ch.pos;
        // `m_TuneZone`: the shot's reach, lifetime and delay are the
        // zone's the shooter stands in.
        let zone = self.col.tune_zone_at(shooter_pos);
        let hammer_hits = !ch.hit_disabled[weapon::HAMMER as usize];
        let fire_sound = match active {
            weapon::HAMMER => sound::HAMMER_FIRE,
            weapon::GUN => sound::GUN_FIRE,
            weapon::SHOTGUN => sound::SHOTGUN_FIRE,
            weapon::GRENADE => sound::GRENADE_FIRE,
            weapon::LASER => sound::LASER_FIRE,
            _ => sound::NINJA_FIRE,
        };
        // The hammer's swing sounds before its hits; every other
        // weapon's shot after its entity is made.
        if active == weapon::HAMMER {
            self.effect(Effect::sound(shooter_pos, fire_sound));
        }
        match active {
            // A hammer that may not hit others hits nobody.
            weapon::HAMMER if !hammer_hits => {}
            weapon::HAMMER => {
                let hits = self.hammer(cid, start, shooter_pos, zone);
                if hits > 0 {
                    let delay = self.tunings.zone(zone).hammer_hit_fire_delay();
                    if let Some(ch) = self.chars[cid].as_mut() {
                        ch.reload_timer = (delay * 50.0 / 1000.0) as i32;
                    }
                }
            }
            weapon::GUN | weapon::GRENADE => {
                let grenade = active == weapon::GRENADE;
                let tuning = self.tunings.zone(zone);
                let lifetime = if grenade {
                    tuning.grenade_lifetime()
                } else {
                    tuning.gun_lifetime()
                };
                let mut p = weapons::new_projectile(
                    active, cid as i32, start, dir, lifetime, grenade, tick,
                );
                p.snap_id = self.snap_ids.take(tick);
                p.aim = aim;
                p.tune_zone = self.col.tune_zone_at(start);
                self.projectiles.insert(0, p);
            }
            weapon::SHOTGUN | weapon::LASER => {
                let reach = self.tunings.zone(zone).laser_reach();
                // The id is taken before the constructor's first bounce.
                let snap_id = self.snap_ids.take(tick);
                let mut l = self
                    .weapons()
                    .new_laser(shooter_pos, dir, reach, cid as i32, active);
                l.snap_id = snap_id;
                self.devices.place_laser(&mut l);
                self.lasers.insert(0, l);
            }
            _ => {
                let vel = self.cores.slots[cid]
                    .as_ref()
                    .map_or(Vec2::default(), |c| c.vel);
                if let Some(ch) = self.chars[cid].as_mut() {
                    weapons::start_dash(ch, dir, vel);
                }
            }
        }
        if active != weapon::HAMMER {
            self.effect(Effect::sound(shooter_pos, fire_sound));
        }
        let reload = self.tunings.zone(zone).reload_ticks(active).unwrap_or(0);
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.attack_tick = tick;
            if ch.reload_timer == 0 && active != -1 {
                ch.reload_timer = reload;
            }
        }
    }

    /// The hammer's blow: every character near the swing, in list order,
    /// with the strength of the shooter's tune zone.
    pub(super) fn hammer(&mut self, cid: usize, start: Vec2, shooter: Vec2, zone: u8) -> usize {
        let strength = self.tunings.zone(zone).hammer_strength();
        let targets: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&t| {
                self.chars[t]
                    .as_ref()
                    .is_some_and(|c| c.pos.distance(start) < PHYSICAL_SIZE * 0.5 + PHYSICAL_SIZE)
            })
            .collect();
        let mut hits = 0;
        for t in targets {
            if t == cid || !self.cores.teams.can_collide(t, cid) {
                continue;
            }
            let target_pos = self.chars[t].as_ref().map_or(shooter, |c| c.pos);
            let hit_at = match (target_pos - start).length() > 0.0 {
                true => target_pos - normalize(target_pos - start) * PHYSICAL_SIZE * 0.5,
                false => start,
            };
            self.effect(Effect::hammer_hit(hit_at));
            let dir = if (target_pos - shooter).length() > 0.0 {
                normalize(target_pos - shooter)
            } else {
                Vec2::new(0.0, -1.0)
            };
            let restrictions = self.chars[t].as_ref().map_or(0, |c| c.move_restrictions);
            if let Some(core) = self.cores.slots[t].as_mut() {
                let mut temp = core.vel + normalize(dir + Vec2::new(0.0, -1.1)) * 10.0;
                temp = clamp_vel(restrictions, temp);
                temp = temp - core.vel;
                let force = (Vec2::new(0.0, -1.0) + temp) * strength;
                core.vel = clamp_vel(restrictions, core.vel + force);
            }
            if let Some(c) = self.chars[t].as_mut() {
                // `TakeDamage` with the hammer's 3 damage, then `Unfreeze`.
                c.pain(self.tick);
                c.unfreeze();
            }
            hits += 1;
        }
        hits
    }

    /// What weapons work on.
    pub(super) fn weapons(&mut self) -> weapons::Ctx<'_> {
        let effects_tick = self.effects_tick();
        self.effects.every_tick = self.config.sv_high_bandwidth != 0;
        weapons::Ctx {
            effects: &mut self.effects,
            effects_tick,
            tick: self.tick,
            tunings: &self.tunings,
            col: &self.col,
            rules: weapons::Rules::of(&self.config),
            cores: &mut self.cores,
            chars: &mut self.chars,
            order: &self.order,
            players: &self.players,
            unknown_zone: Vec::new(),
        }
    }

    /// `CGameWorld::Tick`: projectiles, the laser list (weapon lasers,
    /// the map's turrets and draggers), pickups, then every character's
    /// first phase, then every character's move; what was destroyed goes
    /// at the end.
    pub(super) fn world_tick(&mut self) {
        let tick = self.tick;
        let freeze_delay = self.config.sv_freeze_delay;
        let settings = map_entities::Settings {
            release: self.release,
            plasma_range: self.config.sv_plasma_range,
            plasma_per_sec: self.config.sv_plasma_per_sec,
            dragger_range: self.config.sv_dragger_range,
            freeze_delay,
        };
        // With sv_no_weak_hook every character's core ticks before the
        // rest of the world: 16.4 before all entities
        // (`CGameWorld::Tick`), 20.1 right before the characters.
        let no_weak_hook = self.config.sv_no_weak_hook != 0;
        if no_weak_hook && self.release == Release::Ddnet16_4 {
            for cid in self.order.clone() {
                self.pre_tick(cid);
            }
        }
        let mut projectiles = std::mem::take(&mut self.projectiles);
        let mut lasers = std::mem::take(&mut self.lasers);
        let mut devices = std::mem::take(&mut self.devices);
        let mut ids = std::mem::replace(&mut self.snap_ids, SnapIds::new(self.release));
        let unknown_zone;
        {
            let mut ctx = self.weapons();
            for p in &mut projectiles {
                ctx.tick_projectile(p);
            }
            devices.tick(&mut ctx, settings, &mut lasers, &mut ids);
            unknown_zone = std::mem::take(&mut ctx.unknown_zone);
        }
        for cid in unknown_zone {
            self.unmodelled(
                cid,
                "explosion by a player whose view is not its character's, on a map with tune zones",
            );
        }
        self.snap_ids = ids;
        self.projectiles = projectiles;
        self.lasers = lasers;
        self.devices = devices;
        let fx_tick = self.effects_tick();
        self.effects.every_tick = self.config.sv_high_bandwidth != 0;
        // The characters' positions, in order and bucketed, for the loop
        // over every pickup and character (nothing in it moves a
        // character): each pickup looks at the ones that may be near.
        // Last tick's buckets, each point put again (most stay in their
        // cell) and the ones past the characters taken away.
        let mut at = [(0u8, Vec2::default()); MAX_CLIENTS];
        let mut reused = std::mem::take(&mut self.pickup_near);
        let near = reused.get_mut();
        let mut n = 0;
        for &cid in &self.order {
            if let Some(ch) = self.chars[cid].as_ref() {
                at[n] = (cid as u8, ch.pos);
                near.set(n, Some(ch.pos));
                n += 1;
            }
        }
        near.truncate(n);
        // Surely out of reach (the square past the reach's by a margin for
        // rounding): no square root taken.
        const FAR: f32 = (PICKUP_REACH + PHYSICAL_SIZE) * (PICKUP_REACH + PHYSICAL_SIZE) * 1.001;
        for pk in &self.pickups {
            for (cid, pos) in points(near.candidates(pk.pos, FAR)).map(|k| at[k]) {
                let delta = pos - pk.pos;
                if delta.dot(delta) > FAR {
                    continue;
                }
                let cid = usize::from(cid);
                let Some(ch) = self.chars[cid].as_mut() else {
                    continue;
                };
                let reach = PICKUP_REACH + PHYSICAL_SIZE;
                if matches!(
                    (ch.pos - pk.pos).compare_length(1.0, reach),
                    Some(Ordering::Greater | Ordering::Equal)
                ) {
                    continue;
                }
                let team = self.cores.teams.team[cid];
                if pk.number > 0 && !self.cores.switchers.is_on(pk.number, team) {
                    continue;
                }
                let super_ = self.cores.slots[cid].as_ref().is_some_and(|c| c.super_);
                // What was picked up sounds where the pickup is.
                let picked = |id: i32| Effect::sound(pk.pos, id);
                match pk.kind {
                    PickupKind::Health => {
                        if ch.freeze_at(freeze_delay, tick, super_, self.release) {
                            self.effects.push(fx_tick, picked(sound::PICKUP_HEALTH));
                        }
                    }
                    PickupKind::Armor => {
                        let mut any = false;
                        for w in weapon::SHOTGUN..weapon::COUNT as i32 {
                            if ch.weapons[w as usize].got {
                                ch.weapons[w as usize] = Default::default();
                                any = true;
                            }
                        }
                        ch.ninja.activation_dir = Vec2::default();
                        ch.ninja_activation_tick = -500;
                        ch.ninja.current_move_time = 0;
                        if any {
                            ch.last_weapon = weapon::GUN;
                            self.effects.push(fx_tick, picked(sound::PICKUP_ARMOR));
                        }
                        // `SetActiveWeapon`, not `SetWeapon`: the last
                        // and the queued weapon stay.
                        if ch.active_weapon >= weapon::SHOTGUN {
                            ch.active_weapon = weapon::HAMMER;
                        }
                    }
                    PickupKind::Weapon(w) => {
                        let slot = ch.weapons[w as usize];
                        if !slot.got || slot.ammo != -1 {
                            ch.give_weapon(w);
                            let id = match w {
                                weapon::GRENADE => Some(sound::PICKUP_GRENADE),
                                weapon::SHOTGUN | weapon::LASER => Some(sound::PICKUP_SHOTGUN),
                                _ => None,
                            };
                            if let Some(id) = id {
                                self.effects.push(fx_tick, picked(id));
                            }
                        }
                    }
                    // No sound: 20.1 left it out, and 16.4 asks whether
                    // the ninja was not got after giving it.
                    PickupKind::Ninja => ch.give_ninja(tick),
                }
            }
        }
        self.pickup_near = reused;
        let order = self.order.clone();
        if no_weak_hook && self.release == Release::Ddnet20_1 {
            for &cid in &order {
                self.pre_tick(cid);
            }
        }
        // A character's tick moves no core but its own.
        self.cores.gather();
        for &cid in &order {
            let (alive, team) = (self.chars[cid].is_some(), self.cores.teams.team[cid]);
            self.character_tick(cid);
            self.cores.regather(cid);
            // 20.1: a death that moves its player out of a DDRace team
            // (`SetForceCharacterTeam`'s `RemoveEntitiesFromPlayer`) leaves
            // the world's loop pointer at its end, so the characters after
            // it skip their tick (they still move).
            if self.release == Release::Ddnet20_1
                && alive
                && self.chars[cid].is_none()
                && self.cores.teams.team[cid] != team
            {
                break;
            }
        }
        // The copy kept in step through the characters' ticks serves the
        // moves as it is (naming the unseeded choices moves no core).
        for cid in std::mem::take(&mut self.cores.unseeded_choices) {
            self.unmodelled(cid, "teleporter with several outs, no seed in the header");
        }
        for &cid in &order {
            if self.chars[cid].is_none() {
                continue;
            }
            self.cores
                .move_core(cid, &self.col, self.core_tuning.get(cid));
            let Some(core) = self.cores.slots[cid].as_mut() else {
                continue;
            };
            core.quantize();
            let (pos, events) = (core.pos, core.triggered_events);
            self.cores.regather(cid);
            if let Some(ch) = self.chars[cid].as_mut() {
                ch.pos = pos;
            }
            // `TickDeferred`: the sounds of what the core did.
            use crate::simulation::physics::core::event;
            let sounds = [
                (event::GROUND_JUMP, sound::PLAYER_JUMP),
                (event::HOOK_ATTACH_PLAYER, sound::HOOK_ATTACH_PLAYER),
                (event::HOOK_ATTACH_GROUND, sound::HOOK_ATTACH_GROUND),
                (event::HOOK_HIT_NOHOOK, sound::HOOK_NOATTACH),
            ];
            // Most ticks a core does none of them.
            if sounds.iter().all(|&(bit, _)| events & bit == 0) {
                continue;
            }
            for (bit, id) in sounds {
                if events & bit != 0 {
                    self.effect(Effect::sound(pos, id));
                }
            }
        }
        self.cores.scatter();
        // `RemoveEntities`: what was marked is deleted, its id freed.
        for p in self.projectiles.iter().filter(|p| p.marked) {
            self.snap_ids.free(p.snap_id, tick);
        }
        self.projectiles.retain(|p| !p.marked);
        self.devices
            .remove_marked(&mut self.lasers, &mut self.snap_ids, tick);
        self.number_strong_weak();
        // `CGameContext::OnTick` after the world's and the players' tick
        // (whose spawns may only reset switches, which this overrides).
        self.cores.switchers.expire(tick);
    }

    /// The end of `CGameWorld::Tick`: each character's strong/weak id is
    /// its place in the list.
    pub(super) fn number_strong_weak(&mut self) {
        for (i, &cid) in self.order.iter().enumerate() {
            if let Some(ch) = self.chars[cid].as_mut() {
                ch.strong_weak_id = i as i32;
            }
        }
    }

    /// `CCharacter::PreTick`: `DDRaceTick` (the input as it came, masked
    /// by freeze) and the core's tick, with its deferred part (hooked
    /// players pulled, players pushed apart) unless `sv_no_weak_hook`
    /// leaves that to [`World::character_tick`].
    pub(super) fn pre_tick(&mut self, cid: usize) {
        let zone = self.tune_zone_of(cid);
        let tick = self.tick;
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        // The eyes given last go back to normal (no `/emote` default).
        if ch.emote_stop < tick {
            ch.set_emote(0, -1);
        }
        ch.input = ch.saved_input;
        // The freeze left shown as armor (10 when not frozen), before it
        // counts down: a freeze begun earlier in the tick (a projectile,
        // a laser) shows here, one begun later (a tile) shows 0.
        ch.armor = crate::simulation::ddrace::character::Character::armor_progress(ch.freeze_time);
        if ch.live_frozen {
            ch.input.direction = 0;
            ch.input.jump = 0;
        }
        if ch.freeze_time > 0 {
            // Each second of freeze left counted down in stars.
            if ch.freeze_time % 50 == 49 {
                let (seconds, release) = ((ch.freeze_time + 1) / 50, self.release);
                let stars = Effect::damage_ind(ch.pos, 0.0, seconds, release);
                self.effects.every_tick = self.config.sv_high_bandwidth != 0;
                let fx_tick = match self.stepping {
                    true => tick,
                    false => tick.saturating_add(1),
                };
                for e in stars {
                    self.effects.push(fx_tick, e);
                }
            }
            ch.freeze_time -= 1;
            ch.input.direction = 0;
            ch.input.jump = 0;
            ch.input.hook = 0;
            if ch.freeze_time == 1 {
                ch.unfreeze();
            }
        }
        let input = CoreInput {
            direction: ch.input.direction,
            target_x: ch.input.target_x,
            target_y: ch.input.target_y,
            jump: ch.input.jump,
            hook: ch.input.hook,
        };
        if let Some(core) = self.cores.slots[cid].as_mut() {
            self.core_tuning.take(cid, &self.tunings, zone);
            core.input = input;
        }
        self.cores.old_tele_hook = self.config.sv_old_teleport_hook != 0;
        let no_weak_hook = self.config.sv_no_weak_hook != 0;
        let t = self.core_tuning.get(cid);
        self.cores.tick(cid, &self.col, t, true, !no_weak_hook);
    }

    /// `CCharacter::Tick` (with `HandleWeapons` and
    /// `DDRacePostCoreTick`): first [`World::pre_tick`], or, with
    /// `sv_no_weak_hook` (every character pre-ticked already), the core's
    /// deferred part alone.
    pub(super) fn character_tick(&mut self, cid: usize) {
        let tick = self.tick;
        match self.config.sv_no_weak_hook != 0 {
            true => self.cores.tick_deferred(cid, self.core_tuning.get(cid)),
            false => self.pre_tick(cid),
        }

        // HandleWeapons. The ninja's context only with the ninja in hand
        // (what it sets, `every_tick`, the world's tick set already).
        if self.chars[cid]
            .as_ref()
            .is_some_and(|c| c.active_weapon == weapon::NINJA)
        {
            self.weapons().handle_ninja(cid);
        }
        self.handle_jetpack(cid);
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        if ch.pain_sound_timer > 0 {
            ch.pain_sound_timer -= 1;
        }
        if ch.reload_timer != 0 {
            ch.reload_timer -= 1;
        } else {
            self.fire_weapon(cid);
        }

        // DDRacePostCoreTick.
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        ch.frozen_last_tick = false;
        let deep = ch.deep_frozen;
        let Some(core) = self.cores.slots[cid].as_mut() else {
            return;
        };
        if core.endless_hook {
            core.hook_tick = 0;
        }
        if deep && !core.super_ {
            ch.freeze_at(self.config.sv_freeze_delay, tick, false, self.release);
        }
        // -1 (one ground jump) and 0: the feet are always dark; with one
        // jump, every jump is the last.
        if core.jumps == -1 || core.jumps == 0 || (core.jumps == 1 && core.jumped > 0) {
            core.jumped |= 2;
        } else if core.jumped_total < core.jumps - 1 && core.jumped > 1 {
            core.jumped = 1;
        }
        if (core.super_ || core.endless_jump) && core.jumped > 1 {
            core.jumped = 1;
        }
        if !self.character_tiles(cid) {
            return;
        }
        let core_pos = self.cores.slots[cid].as_ref().map(|c| c.pos);
        if let (Some(ch), Some(pos)) = (self.chars[cid].as_mut(), core_pos) {
            ch.prev_input = ch.input;
            ch.prev_pos = pos;
        }
    }

    /// `HandleJetpack`, every tick before the reload: while the jetpack
    /// gun is in hand and fires (pressed, or held: it is automatic), its
    /// shooter is pushed away from its aim (`TakeDamage` with no damage),
    /// by the `jetpack_strength` of its tune zone.
    fn handle_jetpack(&mut self, cid: usize) {
        let Some(ch) = self.chars[cid].as_ref() else {
            return;
        };
        let gun = ch.weapons[weapon::GUN as usize];
        let fires = presses(ch.latest_prev_input.fire, ch.latest_input.fire) > 0
            || ch.latest_input.fire & 1 != 0;
        if !ch.jetpack || ch.active_weapon != weapon::GUN || !fires {
            return;
        }
        if gun.ammo == 0 || ch.freeze_time != 0 {
            return;
        }
        // The zone only when the jetpack pushes: a lookup a character a
        // tick otherwise.
        let zone = self.tune_zone_of(cid);
        let strength = self.tunings.zone(zone).jetpack_strength();
        let Some(ch) = self.chars[cid].as_ref() else {
            return;
        };
        let aim = Vec2::new(
            ch.latest_input.target_x as f32,
            ch.latest_input.target_y as f32,
        );
        let force = normalize(aim) * -1.0 * (strength / 100.0 / 6.11);
        let restrictions = ch.move_restrictions;
        if let Some(core) = self.cores.slots[cid].as_mut() {
            core.vel = clamp_vel(restrictions, core.vel + force);
        }
    }

    /// More than 200 tiles outside the map (`GameLayerClipped`).
    #[inline]
    pub(super) fn clipped(&self, p: Vec2) -> bool {
        let (w, h) = (self.col.width(), self.col.height());
        // Every tick a character stands well inside: no rounding.
        !well_inside(p, w, h) && clipped(p, w, h)
    }

    /// A death inside the world's tick (`Die`): the player's tick removes
    /// the character, and the respawn delay counts from now.
    pub(super) fn die_in_world(&mut self, cid: usize) {
        self.death_effects(cid);
        let ids = self.chars[cid].as_ref().map(|c| c.snap_ids);
        self.remove_character_keeping_ids(cid);
        if let Some(p) = self.players[cid].as_mut() {
            p.died_in_world = true;
            if let Some(ids) = ids {
                p.dead_character_ids = ids;
            }
        }
    }

    /// `CPlayer::CanSpec`: a character that has not paused yet stands
    /// on the ground and did not move in the last tick.
    fn can_spec(&self, cid: usize) -> bool {
        let Some(ch) = self.chars[cid].as_ref().filter(|c| !c.paused) else {
            return false;
        };
        let below = ch.pos + Vec2::new(0.0, PHYSICAL_SIZE / 2.0 + 4.0);
        let grounded = self.col.is_on_ground(ch.pos, PHYSICAL_SIZE)
            || self.col.move_restrictions(below, 0.0, None) & cantmove::DOWN != 0;
        grounded && ch.pos == ch.prev_pos
    }

    /// Every player's tick, in client id order: respawns, and a
    /// spectating player's character leaving the world
    /// (`CPlayer::ProcessPause`).
    pub(super) fn players_tick(&mut self) {
        if self.release == Release::Ddnet16_4 {
            self.take_join_answers();
        }
        for cid in 0..self.players_end {
            let tick = self.tick;
            let Some(p) = self.players[cid].as_mut() else {
                continue;
            };
            if !p.in_game {
                continue;
            }
            let respawn_tick = p.die_tick.max(p.prev_die_tick + 150) + 2;
            let has_char = self.chars[cid].is_some();
            if !has_char && respawn_tick <= tick {
                p.spawning = true;
            }
            let spectates = p.pause == Pause::Spec;
            if std::mem::take(&mut p.died_in_world) {
                let ids = std::mem::take(&mut p.dead_character_ids);
                for id in ids {
                    self.snap_ids.free(id, tick);
                }
                continue;
            }
            if has_char {
                if spectates && self.can_spec(cid) {
                    self.pause_character(cid, true);
                    // `ProcessPause`: the death effect, then its sound.
                    if let Some(pos) = self.chars[cid].as_ref().map(|c| c.pos) {
                        self.effect(Effect::death(pos, cid));
                        self.effect(Effect::sound(pos, sound::PLAYER_DIE));
                    }
                }
                continue;
            }
            if p.spawning {
                self.try_respawn(cid);
            }
        }
        self.update_view_zones();
    }

    /// Each player's `m_TuneZone` as its tick ends: where its playing
    /// character stands (`m_ViewPos`, also a new one's spawn); kept while
    /// it has none (the view stays where it died); unknown while it
    /// spectates or is paused (the view follows another's character or
    /// its aim).
    fn update_view_zones(&mut self) {
        // Without a tune layer every zone is the global one.
        if !self.col.has_tune_zones() {
            return;
        }
        for cid in 0..self.players_end {
            let Some(p) = self.players[cid].as_ref() else {
                continue;
            };
            if !p.in_game {
                continue;
            }
            let zone = if p.team == TEAM_SPECTATORS || p.pause != Pause::None {
                None
            } else if let Some(ch) = self.chars[cid].as_ref() {
                Some(self.col.tune_zone_at(ch.pos))
            } else {
                continue;
            };
            if let Some(p) = self.players[cid].as_mut() {
                p.view_zone = zone;
            }
        }
    }
}

/// `GameLayerClipped` on a map of `w` by `h` tiles: more than 200 tiles
/// outside it.
fn clipped(p: Vec2, w: i32, h: i32) -> bool {
    use crate::simulation::physics::round_to_int;
    let (x, y) = (round_to_int(p.x) / 32, round_to_int(p.y) / 32);
    x < -200 || x > w + 200 || y < -200 || y > h + 200
}

/// Surely not [`clipped`]: each coordinate above -6000 (rounded, more than
/// -201 tiles) and below the map's side (a size clamped to 2^20 tiles, so
/// the bound is exact in `f32` and far from `i32`'s end). NaN is not.
#[inline]
fn well_inside(p: Vec2, w: i32, h: i32) -> bool {
    let side = |n: i32| n.min(1 << 20) as f32 * 32.0;
    p.x > -6000.0 && p.x < side(w) && p.y > -6000.0 && p.y < side(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::{SwitchTile, Tile};
    use crate::simulation::physics::collision::tile;

    /// A 20 by 10 map of air over a floor (row 8), with `game` tiles on
    /// row 5 and a switch layer tile at (9, 5); characters at (200, 176)
    /// and, with `two`, at (220, 176).
    fn world(release: Release, game: &[(usize, u8)], switch: SwitchTile, two: bool) -> World {
        let (w, h) = (20, 10);
        let mut tiles = vec![Tile::default(); w * h];
        for t in &mut tiles[8 * w..9 * w] {
            t.index = 1;
        }
        for &(x, index) in game {
            tiles[5 * w + x].index = index;
        }
        let mut switches = vec![SwitchTile::default(); w * h];
        switches[5 * w + 9] = switch;
        let col = Collision::new(w as i32, h as i32, &tiles)
            .expect("a grid")
            .with_switch(switches);
        let tunings = Tunings::new(release, Tuning::ddrace(release));
        let mut world = World::new(release, col, Config::new(release), tunings, 0);
        let cids: &[usize] = if two { &[0, 1] } else { &[0] };
        for &cid in cids {
            let pos = Vec2::new(200.0 + 20.0 * cid as f32, 176.0);
            world.put_core(cid, Core::new(cid, pos));
            world.chars[cid] = Some(Character::new(cid, pos, 0, PlayerInput::default()));
            world.order.insert(0, cid);
        }
        world
    }

    fn vel(w: &World, cid: usize) -> Vec2 {
        w.cores.slots[cid].as_ref().expect("a core").vel
    }

    fn aim_and_hold_fire(w: &mut World, cid: usize, target_x: i32, target_y: i32) {
        let ch = w.chars[cid].as_mut().expect("a character");
        ch.latest_input.target_x = target_x;
        ch.latest_input.target_y = target_y;
        ch.latest_input.fire = 1;
        ch.latest_prev_input = ch.latest_input;
    }

    #[test]
    fn the_jetpack_pushes_its_shooter_away_from_its_aim_while_fire_is_held() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(v, &[], SwitchTile::default(), false);
            aim_and_hold_fire(&mut w, 0, 100, 0);
            // Without the jetpack the gun pushes nobody.
            w.handle_jetpack(0);
            assert_eq!(vel(&w, 0), Vec2::default());
            w.chars[0].as_mut().expect("a character").jetpack = true;
            w.handle_jetpack(0);
            // jetpack_strength 400, as DDNet computes it in floats.
            let push = 400.0f32 / 100.0 / 6.11;
            assert_eq!(vel(&w, 0), Vec2::new(-push, 0.0));
            w.handle_jetpack(0);
            assert_eq!(vel(&w, 0), Vec2::new(-push - push, 0.0));
            // Not while frozen, nor with another weapon in hand.
            w.chars[0].as_mut().expect("a character").freeze_time = 10;
            w.handle_jetpack(0);
            assert_eq!(vel(&w, 0), Vec2::new(-push - push, 0.0));
            let ch = w.chars[0].as_mut().expect("a character");
            ch.freeze_time = 0;
            ch.active_weapon = weapon::HAMMER;
            w.handle_jetpack(0);
            assert_eq!(vel(&w, 0), Vec2::new(-push - push, 0.0));
        }
    }

    #[test]
    fn the_jetpack_gun_fires_while_fire_is_held() {
        let mut w = world(Release::Ddnet20_1, &[], SwitchTile::default(), false);
        aim_and_hold_fire(&mut w, 0, 100, 0);
        w.fire_weapon(0);
        assert!(w.projectiles.is_empty(), "held, the gun does not fire");
        w.chars[0].as_mut().expect("a character").jetpack = true;
        w.fire_weapon(0);
        assert_eq!(w.projectiles.len(), 1);
    }

    #[test]
    fn a_hit_disable_tile_stops_the_hammer_and_an_enable_tile_starts_it() {
        for v in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let game = [(5, tile::HIT_DISABLE), (6, tile::HIT_ENABLE)];
            let mut w = world(v, &game, SwitchTile::default(), true);
            w.handle_tiles(0, Some(5 * 20 + 5));
            assert_eq!(w.chars[0].as_ref().map(|c| c.hit_disabled), Some([true; 6]));
            let swing = |w: &mut World| {
                let ch = w.chars[0].as_mut().expect("a character");
                ch.active_weapon = weapon::HAMMER;
                ch.reload_timer = 0;
                ch.latest_input.fire += 1;
                ch.latest_input.target_x = 1;
                w.fire_weapon(0);
            };
            swing(&mut w);
            assert_eq!(vel(&w, 1), Vec2::default(), "a disabled hammer hits nobody");
            w.handle_tiles(0, Some(5 * 20 + 6));
            assert_eq!(
                w.chars[0].as_ref().map(|c| c.hit_disabled),
                Some([false; 6])
            );
            swing(&mut w);
            assert!(vel(&w, 1).y < 0.0, "the hammer hits again");
        }
    }

    #[test]
    fn a_switch_layer_hit_tile_takes_the_weapon_its_delay_names() {
        let switch = SwitchTile {
            number: 0,
            kind: tile::HIT_DISABLE,
            flags: 0,
            delay: weapon::GRENADE as u8,
        };
        let mut w = world(Release::Ddnet20_1, &[], switch, false);
        w.handle_tiles(0, Some(5 * 20 + 9));
        let disabled = w.chars[0].as_ref().map(|c| c.hit_disabled);
        assert_eq!(disabled, Some([false, false, false, true, false, false]));
    }

    /// A character's weapons, reload, queue and last two inputs from
    /// random bytes, the two inputs often alike (as when an input is
    /// handled again).
    fn armed(w: &mut World, b: [u8; 8]) {
        let ch = w.chars[0].as_mut().expect("a character");
        ch.reload_timer = i32::from(b[0] % 3);
        ch.queued_weapon = i32::from(b[1] % 7) - 1;
        ch.active_weapon = i32::from(b[2] % 6);
        for (i, slot) in ch.weapons.iter_mut().enumerate() {
            slot.got = b[3] >> i & 1 != 0 || i == 0;
            slot.ammo = [-1, 0, 10][usize::from(b[4] >> i & 3) % 3];
        }
        let input = |v: u8| PlayerInput {
            fire: i32::from(v & 3),
            next_weapon: i32::from(v >> 2 & 3),
            prev_weapon: i32::from(v >> 4 & 1),
            wanted_weapon: i32::from(v >> 5) % 7,
            target_x: 10,
            ..PlayerInput::default()
        };
        ch.latest_input = input(b[5]);
        ch.latest_prev_input = match b[7] & 3 {
            0 => input(b[6]),
            _ => ch.latest_input,
        };
        ch.input.wanted_weapon = i32::from(b[6] % 7);
        ch.jetpack = b[7] & 4 != 0;
        ch.frozen_last_tick = b[7] & 8 != 0;
        ch.freeze_time = i32::from(b[7] >> 4 & 1) * 5;
    }

    type Bytes = (u8, u8, u8, u8, u8, u8, u8, u8);

    /// Many cases: the skipping tests hold in a few of them.
    fn check(property: fn(Bytes) -> bool) {
        quickcheck::QuickCheck::new()
            .tests(5000)
            .quickcheck(property);
    }

    /// The test that skips `HandleWeaponSwitch` holds only where the
    /// switch would change nothing.
    #[test]
    fn an_idle_switch_changes_nothing() {
        check(|b| {
            let mut w = world(Release::Ddnet20_1, &[], SwitchTile::default(), true);
            armed(&mut w, [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7]);
            let ch = w.chars[0].as_mut().expect("a character");
            if !ch.switch_is_idle() {
                return true;
            }
            let before = format!("{ch:?}");
            !ch.handle_weapon_switch_in_full() && format!("{ch:?}") == before
        });
    }

    /// The test that skips `FireWeapon` holds only where firing would
    /// change nothing in the world.
    #[test]
    fn firing_nothing_changes_nothing() {
        check(|b| {
            let mut w = world(Release::Ddnet20_1, &[], SwitchTile::default(), true);
            armed(&mut w, [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7]);
            if !w.chars[0].as_ref().expect("a character").fires_nothing() {
                return true;
            }
            let before = format!("{w:?}");
            w.fire_weapon_in_full(0);
            format!("{w:?}") == before
        });
    }

    /// A coordinate near a tile's edge `t` (in tiles) or, with `raw`, any
    /// `f32` at all (NaN, infinities, the ends of `i32`).
    fn coordinate(t: i16, frac: u8, raw: u32, kind: u8) -> f32 {
        match kind % 4 {
            0 => f32::from_bits(raw),
            _ => f32::from(t) * 32.0 + (f32::from(frac) - 128.0) / 16.0,
        }
    }

    /// The test that skips `GameLayerClipped`'s roundings holds only where
    /// the character is not clipped.
    #[test]
    fn well_inside_is_never_clipped() {
        fn property(x: (i16, u8, u32, u8), y: (i16, u8, u32, u8), w: u16, h: u16) -> bool {
            let p = Vec2::new(
                coordinate(x.0 % 300, x.1, x.2, x.3),
                coordinate(y.0 % 300, y.1, y.2, y.3),
            );
            // Small maps (their far side within reach of the tiles tried)
            // and, now and then, ones past the clamp.
            let size = |n: u16| match n % 8 {
                0 => (1 << 24) + i32::from(n),
                _ => i32::from(n % 64) + 1,
            };
            let (w, h) = (size(w), size(h));
            !well_inside(p, w, h) || !clipped(p, w, h)
        }
        quickcheck::QuickCheck::new()
            .tests(20_000)
            .quickcheck(property as fn(_, _, u16, u16) -> bool);
    }

    #[test]
    fn sv_hit_0_spawns_characters_that_hit_nobody() {
        let pos = Vec2::new(1.0, 2.0);
        let ch = Character::new(0, pos, 0, PlayerInput::default());
        assert_eq!(ch.clone().hit_others(false).hit_disabled, [true; 6]);
        assert_eq!(ch.hit_others(true).hit_disabled, [false; 6]);
    }
}
