//! The switch layer under a character (`HandleTiles`' switch part of
//! `character.cpp`) and the teams' switches (`CGameTeams::ResetSwitchers`,
//! `CGameContext::OnTick`'s timed switches): switch tiles turn their
//! number on or off in the character's team, for good or for their delay
//! in seconds; freeze, deep freeze and live freeze tiles with a number
//! act while it is on; the hit and jump tiles act always, and the time
//! tiles move the race's start (which kill protection reads). The doors the
//! switches close are stoppers of the map's collision, met through
//! [`Cores::door_closed`](crate::simulation::physics::core::Cores::door_closed).
//!
//! Proved on DDNet 20.1's coverage.map (16.4's copy of the map has no
//! switch layer; both releases' rules are the same).

use super::World;
use super::race::SV_TEAM_FORCED_SOLO;
use crate::simulation::ddrace::character::weapon;
use crate::simulation::physics::collision::tile;

/// Ticks a second.
const TICK_SPEED: i32 = 50;

impl World {
    /// What the switch layer's tile on map index `i` does to `cid`.
    pub(super) fn switch_tiles(&mut self, cid: usize, i: usize) {
        let (tick, release) = (self.tick, self.release);
        let (kind, number, delay) = self.col.switch_at(i);
        let team = self.cores.teams.team[cid];
        let super_team = team == self.cores.teams.super_team;
        let switched = number > 0
            && !super_team
            && self
                .cores
                .switchers
                .switch_tile(kind, number, delay, team, tick);
        // A numbered freeze acts while its switch is on.
        let on = number == 0 || self.cores.switchers.is_on(number, team);
        let (Some(ch), Some(core)) = (self.chars[cid].as_mut(), self.cores.slots[cid].as_mut())
        else {
            return;
        };
        let time = (i32::from(delay) * 60 + i32::from(number)) * TICK_SPEED;
        let mut start_tick = None;
        match kind {
            _ if switched => {}
            tile::FREEZE | tile::DFREEZE | tile::DUNFREEZE | tile::LFREEZE | tile::LUNFREEZE
                if super_team || !on => {}
            tile::FREEZE => {
                ch.freeze_at(i32::from(delay), tick, core.super_, release);
            }
            tile::DFREEZE => ch.deep_frozen = true,
            tile::DUNFREEZE => ch.deep_frozen = false,
            tile::LFREEZE => ch.live_frozen = true,
            tile::LUNFREEZE => ch.live_frozen = false,
            // One weapon's hits, by the delay (16.4 and 20.1 take the
            // hammer, shotgun, grenade and laser).
            tile::HIT_ENABLE | tile::HIT_DISABLE
                if matches!(
                    i32::from(delay),
                    weapon::HAMMER | weapon::SHOTGUN | weapon::GRENADE | weapon::LASER
                ) =>
            {
                ch.hit_disabled[usize::from(delay)] = kind == tile::HIT_DISABLE;
            }
            tile::JUMP => {
                core.jumps = if delay == 255 { -1 } else { i32::from(delay) };
            }
            // Time tiles, once a stay: the delay's minutes and the
            // number's seconds added to the race's time (taken from the
            // start), or taken off down to none.
            tile::ADD_TIME if !ch.last_penalty => {
                ch.start_tick = ch.start_tick.wrapping_sub(time);
                ch.last_penalty = true;
                start_tick = Some(ch.start_tick);
            }
            tile::SUBTRACT_TIME if !ch.last_bonus => {
                ch.start_tick = ch.start_tick.wrapping_add(time).min(tick);
                ch.last_bonus = true;
                start_tick = Some(ch.start_tick);
            }
            _ => {}
        }
        if kind != tile::ADD_TIME {
            ch.last_penalty = false;
        }
        if kind != tile::SUBTRACT_TIME {
            ch.last_bonus = false;
        }
        // The team's members share the time, in a team of their own.
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        if let Some(start) = start_tick
            && (forced_solo || team != 0)
            && !super_team
        {
            for (c, other) in self.chars.iter_mut().enumerate() {
                if let Some(other) = other
                    && c != cid
                    && self.players[c].is_some()
                    && self.cores.teams.team[c] == team
                {
                    other.start_tick = start;
                }
            }
        }
    }

    /// `ResetSwitchers(team)` where a team is emptied or opened anew
    /// (`SetForceCharacterTeam`, `ResetRoundState`): not the super team,
    /// and not team 0 unless everyone is a team of one (team 0 opens at
    /// the first spawn, before any switch changed, and never empties).
    pub(super) fn reset_switchers(&mut self, team: i32) {
        let forced_solo = self.config.sv_team == SV_TEAM_FORCED_SOLO;
        if team == self.cores.teams.super_team || (team == 0 && !forced_solo) {
            return;
        }
        self.cores.switchers.reset(team);
    }

    /// `OnCharacterDeath` with `sv_team` 3: the dead player's team (its
    /// own) is reset, in practice only by a death that is not the world's,
    /// which this world does not tell apart: named when the map has
    /// switches.
    pub(super) fn death_resets_switchers(&mut self, cid: usize) {
        let team = self.cores.teams.team[cid];
        if self.config.sv_team != SV_TEAM_FORCED_SOLO || self.cores.switchers.is_empty() {
            return;
        }
        if self.is_practice(team) {
            self.unmodelled(
                cid,
                "a death in practice with sv_team 3 on a map with switches",
            );
            return;
        }
        self.reset_switchers(team);
    }

    /// `CSaveTeam::Save`'s switches of `team`, 1 to the map's highest:
    /// (on, ticks since a timed switch's end (0: none), its last kind).
    pub(super) fn saved_switchers(&self, team: i32) -> Vec<(i32, i32, i32)> {
        let highest = u8::try_from(self.col.highest_switch()).unwrap_or(0);
        (1..=highest)
            .filter_map(|n| self.cores.switchers.get(n, team))
            .map(|s| {
                let end = if s.end_tick != 0 {
                    self.tick - s.end_tick
                } else {
                    0
                };
                (i32::from(s.on), end, i32::from(s.kind))
            })
            .collect()
    }

    /// `CSaveTeam::Load`'s: `team`'s switches as `saved` has them, as far
    /// as both the string and the map have switches (a timed end counted
    /// from now; none kept).
    pub(super) fn load_switchers(&mut self, team: i32, saved: &[(i32, i32, i32)]) {
        let tick = self.tick;
        let highest = u8::try_from(self.col.highest_switch()).unwrap_or(0);
        for (n, &(on, end, kind)) in (1..=highest).zip(saved) {
            let Some(mut s) = self.cores.switchers.get(n, team) else {
                continue;
            };
            s.on = on != 0;
            if end != 0 {
                s.end_tick = tick.wrapping_sub(end);
            }
            s.kind = kind as u8;
            self.cores.switchers.set(n, team, s);
        }
    }
}
