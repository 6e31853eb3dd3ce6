//! What the DDRace tiles under a character do (`HandleSkippableTiles`,
//! `HandleTiles` and the controller's `HandleCharacterTiles` of
//! `character.cpp` and `ddnet.cpp`): death, speedups, freeze, stoppers,
//! jumps, solo, the race's start, switches and teleporters.
//!
//! They run after the core's tick, on the position of the end of the
//! last tick (`m_Pos`) and on every tile the core crossed since
//! (`GetMapIndices`), so their effects take hold before this tick's move.

use super::Vec2;
use super::World;
use super::collision::{TILE_DEATH, tile};
use super::core::{PHYSICAL_SIZE, cantmove, clamp_vel, hook};

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
        let core_pos = self.cores.slots[cid].as_ref().map_or(pos, |c| c.pos);
        let indices = self.col.map_indices(prev, core_pos);
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
        let deadly = corners
            .iter()
            .any(|&p| self.col.collision_at(p) == TILE_DEATH)
            || corners
                .iter()
                .any(|&p| self.col.front_collision_at(p) == TILE_DEATH);
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
        if let Some(s) = self.col.speedup_at(i) {
            self.unmodelled(cid, &format!("speedup (kind {})", s.kind));
        }
        true
    }

    /// `HandleTiles` (with the controller's start, finish and solo) on map
    /// index `index`.
    fn handle_tiles(&mut self, cid: usize, index: Option<usize>) -> bool {
        let tick = self.tick;
        let freeze_delay = self.config.sv_freeze_delay;
        let version = self.version;
        let pos = match self.chars[cid].as_ref() {
            Some(ch) => ch.pos,
            None => return false,
        };
        let restrictions = self.col.move_restrictions(pos, 18.0, index);
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.move_restrictions = restrictions;
        }
        let Some(i) = index else {
            if let Some(ch) = self.chars[cid].as_mut() {
                ch.last_refill_jumps = false;
            }
            return true;
        };
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
        if (on(tile::START) || corner_start)
            && let Some(ch) = self.chars[cid].as_mut()
        {
            ch.race_started = true;
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
            ch.freeze_at(freeze_delay, tick, false, version);
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

        // Switch tiles.
        let (kind, number, delay) = self.col.switch_at(i);
        let mut unmodelled = None;
        match kind {
            tile::SWITCHOPEN
            | tile::SWITCHTIMEDOPEN
            | tile::SWITCHTIMEDCLOSE
            | tile::SWITCHCLOSE
                if number > 0 =>
            {
                unmodelled = Some("switch");
            }
            tile::FREEZE if number == 0 => {
                ch.freeze_at(i32::from(delay), tick, core.super_, version);
            }
            tile::DFREEZE if number == 0 => ch.deep_frozen = true,
            tile::DUNFREEZE if number == 0 => ch.deep_frozen = false,
            tile::LFREEZE if number == 0 => ch.live_frozen = true,
            tile::LUNFREEZE if number == 0 => ch.live_frozen = false,
            tile::FREEZE | tile::DFREEZE | tile::DUNFREEZE | tile::LFREEZE | tile::LUNFREEZE => {
                unmodelled = Some("switched freeze");
            }
            tile::JUMP => {
                core.jumps = if delay == 255 { -1 } else { i32::from(delay) };
            }
            _ => {}
        }
        if let Some(feature) = unmodelled {
            self.unmodelled(cid, feature);
        }

        // Teleporters.
        let (tkind, tnum) = self.col.tele_at(i);
        let n = usize::from(tnum.max(1) - 1);
        let is_in = tkind == tile::TELEIN && tnum != 0;
        let is_evil = tkind == tile::TELEINEVIL && tnum != 0;
        if is_in && !self.col.tele_outs[n].is_empty()
            || is_evil && !self.col.tele_outs[n].is_empty()
        {
            if self.cores.slots[cid].as_ref().is_some_and(|c| c.super_) {
                return true;
            }
            let outs = self.col.tele_outs[n].clone();
            let Some(out) = self.random_out(cid, &outs) else {
                return true;
            };
            let hold = self.config.sv_teleport_hold_hook != 0;
            if let Some(core) = self.cores.slots[cid].as_mut() {
                core.pos = out;
                if is_evil {
                    core.vel = Vec2::default();
                }
                if !hold {
                    core.hooked_player = -1;
                    core.hook_state = hook::RETRACTED;
                    core.hook_pos = core.pos;
                }
            }
            if is_evil && !hold {
                self.release_hooked(cid);
            }
            return true;
        }
        if tkind == tile::TELECHECKINEVIL || tkind == tile::TELECHECKIN {
            self.unmodelled(cid, "checkpoint teleporter");
        }
        true
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
    fn set_solo(&mut self, cid: usize, solo: bool) {
        self.cores.teams.solo[cid] = solo;
        if let Some(core) = self.cores.slots[cid].as_mut() {
            core.solo = solo;
        }
    }

    /// `ReleaseHooked`: every hook holding `cid` lets go.
    pub(super) fn release_hooked(&mut self, cid: usize) {
        for core in self.cores.slots.iter_mut().flatten() {
            if core.hooked_player == cid as i32 {
                core.hooked_player = -1;
                core.hook_state = hook::RETRACTED;
                core.hook_pos = core.pos;
            }
        }
    }

    /// `HandleTuneLayer`: the zone the character stands in.
    pub(super) fn tune_zone_of(&mut self, cid: usize) -> u8 {
        let Some(pos) = self.chars[cid].as_ref().map(|c| c.pos) else {
            return 0;
        };
        self.col.tune_zone(self.col.map_index(pos))
    }
}
