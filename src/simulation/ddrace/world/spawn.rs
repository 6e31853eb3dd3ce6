//! Where characters spawn (`CanSpawn`, `EvaluateSpawnType`) and respawn,
//! and the map's spawn points and pickups.

use super::*;
use crate::simulation::ddrace::map_entities;

/// The spawn points (default, red, blue) and the pickups (newest first)
/// of the map's entities, of every layer that has them
/// (`IGameController::OnEntity`).
pub(super) fn spawns_and_pickups(col: &Collision) -> ([Vec<Vec2>; 3], Vec<Pickup>) {
    let mut spawns: [Vec<Vec2>; 3] = Default::default();
    let mut pickups = Vec::new();
    for e in map_entities::entities(col) {
        if let e2 @ 1..=3 = e.entity {
            spawns[usize::from(e2 - 1)].push(e.pos);
            continue;
        }
        let Some(kind) = pickup_kind(e.entity) else {
            continue;
        };
        // Each new entity goes to the head of its list.
        pickups.insert(
            0,
            Pickup {
                pos: e.pos,
                kind,
                number: e.number,
                layer: e.layer,
                flags: e.flags,
                snap_id: None,
            },
        );
    }
    (spawns, pickups)
}

impl World {
    /// `TryRespawn`: a character at the best spawn point.
    pub(super) fn try_respawn(&mut self, cid: usize) {
        let Some(p) = self.players[cid].as_ref() else {
            return;
        };
        if p.team == TEAM_SPECTATORS {
            return;
        }
        let Some(pos) = self.spawn_position(cid) else {
            return;
        };
        self.spawn_at(cid, pos);
        self.effect(Effect::spawn(pos));
        // `sv_team 3` (16.4 and 20.1): a new character is solo.
        if self.config.sv_team == super::race::SV_TEAM_FORCED_SOLO {
            self.set_solo(cid, true);
        }
    }

    /// A new character for `cid` at `pos` (`ForceSpawn`, and a respawn's
    /// end), with the player's last input.
    pub(super) fn spawn_at(&mut self, cid: usize, pos: Vec2) {
        let Some(p) = self.players[cid].as_mut() else {
            return;
        };
        p.spawning = false;
        let last_input = p.last_input.unwrap_or(PlayerInput {
            target_y: -1,
            ..PlayerInput::default()
        });
        let mut core = Core::new(cid, pos);
        core.endless_hook = self.config.sv_endless_drag != 0;
        self.put_core(cid, core);
        let mut ch =
            Character::new(cid, pos, self.tick, last_input).hit_others(self.config.sv_hit != 0);
        // 16.4's character is an entity with an id; 20.1's takes two
        // (`m_aUntranslatedId`) and none as an entity.
        let tick = self.tick;
        ch.snap_ids = match self.release {
            Release::Ddnet16_4 => [self.snap_ids.take(tick), None],
            Release::Ddnet20_1 => [self.snap_ids.take(tick), self.snap_ids.take(tick)],
        };
        self.chars[cid] = Some(ch);
        self.order.insert(0, cid);
    }

    /// `CanSpawn`: the spawn point with the fewest characters near,
    /// each type in turn.
    /// A check teleporter without a checkpoint asks the same, for a
    /// player whose character lives.
    pub(super) fn spawn_position(&self, cid: usize) -> Option<Vec2> {
        let mut best: Option<(f32, Vec2)> = None;
        let global_collision = self.global().player_collision() != 0.0;
        // 20.1 also tries no offsets for a player whose character has
        // collision disabled.
        let collision = global_collision
            && !(self.release == Release::Ddnet20_1
                && self.cores.slots[cid]
                    .as_ref()
                    .is_some_and(|c| c.collision_disabled));
        for (kind, points) in self.spawns.iter().enumerate() {
            match self.release {
                // 16.4 looks at the next type only while nothing is found.
                Release::Ddnet16_4 if best.is_some() => break,
                Release::Ddnet20_1 if !global_collision && best.is_some() => break,
                _ => {}
            }
            let _ = kind;
            for pass in 0..2 {
                for &point in points {
                    let mut p = point;
                    if pass == 0 {
                        match self.free_offset(cid, point, collision) {
                            Some(off) => p = p + off,
                            None => continue,
                        }
                    }
                    let score = self.spawn_score(cid, p);
                    if best.is_none() || (pass == 0 && best.is_some_and(|(s, _)| s > score)) {
                        best = Some((score, p));
                    }
                }
            }
        }
        best.map(|(_, p)| p)
    }

    /// The first of the spawn point and the tiles left, up, right and
    /// down of it that no character near blocks (`EvaluateSpawnType`).
    pub(super) fn free_offset(&self, cid: usize, point: Vec2, collision: bool) -> Option<Vec2> {
        const OFFSETS: [(f32, f32); 5] = [
            (0.0, 0.0),
            (-32.0, 0.0),
            (0.0, -32.0),
            (32.0, 0.0),
            (0.0, 32.0),
        ];
        let near: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&c| {
                self.chars[c]
                    .as_ref()
                    .is_some_and(|ch| ch.pos.distance(point) < 64.0 + PHYSICAL_SIZE)
            })
            .collect();
        'offsets: for (dx, dy) in OFFSETS {
            let off = Vec2::new(dx, dy);
            if !collision {
                return Some(off);
            }
            for &c in &near {
                let (Some(ch), Some(core)) = (self.chars[c].as_ref(), self.cores.slots[c].as_ref())
                else {
                    continue;
                };
                let can_collide = match self.release {
                    Release::Ddnet20_1 => {
                        self.cores.teams.can_collide(c, cid) && !core.collision_disabled
                    }
                    Release::Ddnet16_4 => true,
                };
                let at = point + off;
                if self.col.check_point(at) || (can_collide && ch.pos.distance(at) <= PHYSICAL_SIZE)
                {
                    continue 'offsets;
                }
            }
            return Some(off);
        }
        None
    }

    /// `EvaluateSpawnPos`: the sum of 1/distance to the characters it can
    /// collide with (16.4: those of its DDRace team), in list order.
    pub(super) fn spawn_score(&self, cid: usize, p: Vec2) -> f32 {
        let mut score = 0.0f32;
        let teams = &self.cores.teams;
        for &c in &self.order {
            let counts = match self.release {
                Release::Ddnet20_1 => teams.can_collide(c, cid),
                Release::Ddnet16_4 => teams.team[c] == teams.team[cid],
            };
            if !counts {
                continue;
            }
            let Some(ch) = self.chars[c].as_ref() else {
                continue;
            };
            let d = p.distance(ch.pos);
            score += if d == 0.0 { 1_000_000_000.0 } else { 1.0 / d };
        }
        score
    }
}
