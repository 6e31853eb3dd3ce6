//! The world a server ticks (`CGameWorld` with its players and
//! controller): who plays, who has a character, where they spawn, and one
//! tick of everything in DDNet's order (`CServer::Run`, `OnTick`).
//!
//! It is driven from outside, between ticks, with what a teehistorian file
//! records (joins, kills, team changes, inputs), then stepped one tick at
//! a time; after each step [`World::positions`] is what the file's
//! PLAYER records must say.

mod commands;
pub mod race;
mod spawn;
pub use super::map_entities::{PickupKind, pickup_kind};
mod switches;
mod tick;
mod tiles;

use super::character::{Character, PLAYERFLAG_CHATTING, PLAYERFLAG_SPEC_CAM, presses, weapon};
use super::config::Config;
use super::effects::{Effect, Effects};
use super::map_entities::Devices;
use super::player::{Pause, Player, TEAM_SPECTATORS};
use super::snap_ids::SnapIds;
use super::weapons::{self, Laser, Projectile};
use crate::simulation::Release;
use crate::simulation::coverage::Watch;
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::core::{
    Core, CoreInput, Cores, MAX_CLIENTS, PHYSICAL_SIZE, clamp_vel, normalize,
};
use crate::simulation::physics::near::Reused;
use crate::simulation::physics::switchers::Switchers;
use crate::simulation::physics::tuning::{Applied, CoreTunings, Tuning, Tunings};
use crate::teehistorian::PlayerInput;
use serde::Serialize;

/// A pickup's radius (`PICKUP_PHYSICS_RADIUS`) plus its extra reach
/// (`ms_CollisionExtraSize`).
const PICKUP_REACH: f32 = 14.0 + 6.0;
/// The test commands that give or take weapons (`ModifyWeapons`: a cheat).
const WEAPON_COMMANDS: &[&str] = &[
    "weapons",
    "unweapons",
    "shotgun",
    "unshotgun",
    "grenade",
    "ungrenade",
    "laser",
    "unlaser",
    "rifle",
    "unrifle",
    "ninja",
    "unninja",
];
/// The other test commands that act on the runner's character.
const CHARACTER_COMMANDS: &[&str] = &[
    "move",
    "move_raw",
    "left",
    "right",
    "up",
    "down",
    "setjumps",
    "endless_hook",
    "unendless_hook",
    "infinite_jump",
    "uninfinite_jump",
    "freeze",
    "unfreeze",
    "deep",
    "undeep",
    "livefreeze",
    "unlivefreeze",
];

/// A pickup on the map.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pickup {
    /// Its centre.
    pub pos: Vec2,
    /// What it gives.
    pub kind: PickupKind,
    /// Its switch (switch layer only; 0: always on): it is there for a
    /// team while the switch is on there.
    #[serde(skip)]
    pub number: u8,
    /// The layer that made it (DDNet's number: game 0, front 1, switch
    /// 4).
    #[serde(skip)]
    pub layer: u8,
    /// Its tile's flags (rotation, flips).
    #[serde(skip)]
    pub flags: u8,
    /// Its snapshot id.
    #[serde(skip)]
    pub snap_id: Option<i32>,
}

/// A 0.7 client's team change: DDNet records a 0.7 client's message only
/// where 0.6's table has a recorded message of the same id, and 0.7's
/// `Cl_SetTeam` has 0.6's `Cl_CallVote`'s, which is not recorded.
pub const UNRECORDED_TEAM_CHANGE: &str = "a 0.7 client's team change (DDNet does not record it)";

/// Something happened that the simulation does not model: from here on,
/// the characters it touches may go where the file says and this world
/// does not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unmodelled {
    /// The tick it happened in.
    pub tick: i32,
    /// Whose character it touched; `None`: everybody's, for the rest of
    /// the file (a setting the header sets; the field is left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cid: Option<usize>,
    /// Where that character was, if it had one (else left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pos: Option<(i32, i32)>,
    /// What DDNet feature ([`crate::simulation::coverage`]'s name).
    pub feature: String,
}

/// `not modelled: FEATURE at tick T, (x, y): client C`.
impl std::fmt::Display for Unmodelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not modelled: {} at tick {}", self.feature, self.tick)?;
        if let Some((x, y)) = self.pos {
            write!(f, ", ({x}, {y})")?;
        }
        match self.cid {
            Some(c) => write!(f, ": client {c}"),
            None => write!(f, ": everybody, from then on"),
        }
    }
}

/// What the world holds at a tick, for people and programs: every
/// character (its core and the rest), in client id order, the
/// projectiles and lasers newest first.
#[derive(Clone, Debug, Serialize)]
pub struct WorldState {
    /// The tick.
    pub tick: i32,
    /// Each character: its core, then freeze, weapons and inputs.
    pub characters: Vec<CharacterState>,
    /// Flying projectiles.
    pub projectiles: Vec<Projectile>,
    /// Lasers and shotgun beams.
    pub lasers: Vec<Laser>,
}

/// One character of a [`WorldState`].
#[derive(Clone, Debug, Serialize)]
pub struct CharacterState {
    /// Its client id.
    pub cid: usize,
    /// Its DDRace team.
    pub team: i32,
    /// The physical core.
    pub core: Core,
    /// Freeze, weapons, inputs.
    pub character: Character,
}

/// The world.
#[derive(Clone, Debug)]
pub struct World {
    /// Which server's rules.
    pub release: Release,
    /// The last tick stepped.
    pub tick: i32,
    pub(super) col: std::sync::Arc<Collision>,
    /// The tuning, global and per zone.
    pub tunings: Tunings,
    /// The server settings.
    pub config: Config,
    /// Every character's core.
    pub cores: Cores,
    /// The tuning each client id's core ticks and moves with, in its
    /// slot or paused: beside the cores, which are copied every tick.
    pub(super) core_tuning: CoreTunings,
    /// The cores of paused characters, out of [`World::cores`]
    /// (`CCharacter::Pause` clears `m_apCharacters`): nobody meets them.
    pub(super) paused_cores: Vec<Option<Core>>,
    pub(super) chars: Vec<Option<Character>>,
    /// The character list, newest first: the order they tick in.
    pub(super) order: Vec<usize>,
    pub(super) players: Vec<Option<Player>>,
    /// One past the highest client id that ever joined: the loops over
    /// the players stop there (an empty slot read is a cache line).
    pub(super) players_end: usize,
    /// One past the highest client id that ever had a core: none past it
    /// has one, in its slot or paused.
    cores_end: usize,
    /// Spawn points: default, red, blue.
    spawns: [Vec<Vec2>; 3],
    /// Pickups, newest first (the order they tick in).
    pickups: Vec<Pickup>,
    /// The characters' positions bucketed for the pickups' loop (kept
    /// from tick to tick not to fill 16 KiB a tick).
    pickup_near: Reused,
    /// Inputs recorded for the coming tick, per client id, in file order.
    pending: Vec<Vec<PlayerInput>>,
    /// What was not modelled, in order.
    pub unmodelled: Vec<Unmodelled>,
    /// Projectiles, newest first.
    pub projectiles: Vec<Projectile>,
    /// Lasers, newest first.
    pub lasers: Vec<Laser>,
    /// The map's plasma turrets and draggers, their bullets and beams.
    pub devices: Devices,
    /// The DDRace teams' states, starts and savegames.
    pub(super) race: race::Race,
    /// What the map holds that the model lacks ([`Watch`]).
    watch: std::sync::Arc<Watch>,
    /// Per client id: the spawn tick of the character whose meeting with
    /// something unmodelled was named (once a life).
    watched: Vec<Option<i32>>,
    /// The events waiting for the next snapshot.
    pub(super) effects: Effects,
    /// The server's snapshot ids.
    pub(super) snap_ids: SnapIds,
    /// Inside [`World::step`], past the tick's start: what happens now
    /// is this tick's, not the next one's.
    stepping: bool,
    /// The file follows a map change (its header names the game before),
    /// and no tick has begun: a client joining now came over from the
    /// last map with its away state (20.1's `CPersistentClientData`),
    /// which only the last map's file knows; it is shown present.
    pub carried_over: bool,
}

impl World {
    /// A world on `col`'s map at `tick`, with no players: spawn points,
    /// pickups, turrets and draggers from the map's entities.
    pub fn new(
        release: Release,
        col: Collision,
        config: Config,
        tunings: Tunings,
        tick: i32,
    ) -> World {
        let (spawns, mut pickups) = spawn::spawns_and_pickups(&col);
        let mut devices = Devices::of(&col, tick);
        let mut projectiles = super::map_entities::bullets(&col, tick);
        // The map's entities take the first ids in the order the map
        // makes them, tile by tile (the lists are newest first).
        let mut snap_ids = SnapIds::new(release);
        let mut pickups_made = pickups.iter_mut().rev();
        let mut bullets_made = projectiles.iter_mut().rev();
        let mut devices_made = devices.devices.iter_mut();
        for made in super::map_entities::made(&col) {
            let id = snap_ids.take(tick);
            use super::map_entities::Made;
            match made {
                Made::Pickup => pickups_made.next().map(|p| p.snap_id = id),
                Made::Bullet => bullets_made.next().map(|p| p.snap_id = id),
                Made::Device => devices_made.next().map(|d| d.set_snap_id(id)),
            };
        }
        let mut cores = Cores::new(release);
        let teams = usize::try_from(cores.teams.super_team).unwrap_or(0) + 1;
        cores.switchers = Switchers::new(col.highest_switch(), teams);
        let watch = std::sync::Arc::new(Watch::new(
            release,
            &col,
            config.sv_dragger_range,
            config.sv_plasma_range,
        ));
        let core_tuning = CoreTunings::new(&tunings, MAX_CLIENTS);
        World {
            release,
            tick,
            watch,
            watched: vec![None; MAX_CLIENTS],
            col: std::sync::Arc::new(col),
            tunings,
            config,
            cores,
            paused_cores: vec![None; MAX_CLIENTS],
            core_tuning,
            chars: vec![None; MAX_CLIENTS],
            order: Vec::new(),
            players: vec![None; MAX_CLIENTS],
            players_end: 0,
            cores_end: 0,
            spawns,
            pickups,
            pickup_near: Reused::default(),
            pending: vec![Vec::new(); MAX_CLIENTS],
            unmodelled: Vec::new(),
            projectiles,
            lasers: Vec::new(),
            devices,
            race: race::Race::new(),
            effects: Effects::new(false),
            snap_ids,
            stepping: false,
            carried_over: false,
        }
    }

    /// The events the snapshot of this tick carries, in the order they
    /// were made.
    pub fn effects(&self) -> &[Effect] {
        self.effects.at(self.tick)
    }

    /// The tick of the snapshot that sends what happens now: the tick
    /// being stepped, or between two ticks the next.
    pub(super) fn effects_tick(&self) -> i32 {
        match self.stepping {
            true => self.tick,
            false => self.tick.saturating_add(1),
        }
    }

    /// An event for the next snapshot (`m_Events.Create`).
    pub(super) fn effect(&mut self, e: Effect) {
        let tick = self.effects_tick();
        self.effects.every_tick = self.config.sv_high_bandwidth != 0;
        self.effects.push(tick, e);
    }

    /// Every character's client id and position, by client id (a
    /// paused one's too: the file records every player's character).
    pub fn positions(&self) -> impl Iterator<Item = (usize, i32, i32)> + '_ {
        (0..MAX_CLIENTS).filter_map(|cid| self.position(cid).map(|(x, y)| (cid, x, y)))
    }

    /// `cid`'s character's position as the file writes it (truncated).
    pub fn position(&self, cid: usize) -> Option<(i32, i32)> {
        self.core(cid).map(|c| (c.pos.x as i32, c.pos.y as i32))
    }

    /// The core of `cid`'s character, in the world or paused.
    pub fn core(&self, cid: usize) -> Option<&Core> {
        let slot = self.cores.slots.get(cid)?.as_ref();
        slot.or(self.paused_cores.get(cid)?.as_ref())
    }

    /// Every client id's [`World::core`], into `out` by client id: a
    /// core copied as one block, an empty slot only marked empty. Up to
    /// [`World::cores_end`]: past it `out` is left as it is (empty, when
    /// it holds a copy of this world's or of an earlier one's).
    pub fn copy_cores(&self, out: &mut [Option<Core>]) {
        let cores = self.cores.slots.iter().zip(&self.paused_cores);
        let cores = cores.take(self.cores_end);
        for (o, (slot, paused)) in out.iter_mut().zip(cores) {
            match slot.as_ref().or(paused.as_ref()) {
                Some(c) => *o = Some(*c),
                None => *o = None,
            }
        }
    }

    /// The core of `cid`'s character while it is paused (`/pause`,
    /// `/spec`).
    pub fn paused_core(&self, cid: usize) -> Option<&Core> {
        self.paused_cores.get(cid)?.as_ref()
    }

    /// The character of `cid`.
    pub fn character(&self, cid: usize) -> Option<&Character> {
        self.chars.get(cid)?.as_ref()
    }

    /// The player of `cid`.
    pub fn player(&self, cid: usize) -> Option<&Player> {
        self.players.get(cid)?.as_ref()
    }

    /// No player, projectile or laser: a tick changes nothing.
    pub fn is_idle(&self) -> bool {
        self.players.iter().all(Option::is_none)
            && self.projectiles.is_empty()
            && self.lasers.is_empty()
            && self.devices.is_idle(&self.col)
    }

    /// What the world holds now.
    pub fn state(&self) -> WorldState {
        WorldState {
            tick: self.tick,
            characters: (0..MAX_CLIENTS)
                .filter_map(|cid| {
                    Some(CharacterState {
                        cid,
                        team: self.cores.teams.team[cid],
                        core: *self.core(cid)?,
                        character: self.chars[cid].clone()?,
                    })
                })
                .collect(),
            projectiles: self.projectiles.clone(),
            lasers: self.lasers.clone(),
        }
    }

    /// The characters, newest first (the tick order).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The map's pickups, newest first (the order they tick and snap in).
    pub fn pickups(&self) -> &[Pickup] {
        &self.pickups
    }

    /// The map's collision.
    pub fn collision(&self) -> &Collision {
        &self.col
    }

    /// A client connected (JOIN).
    pub fn join(&mut self, cid: usize) {
        if cid < MAX_CLIENTS {
            self.kill_now(cid);
            let mut player = Player::new(self.tick, self.release);
            player.afk &= !self.carried_over;
            self.players[cid] = Some(player);
            self.players_end = self.players_end.max(cid + 1);
            self.pending[cid].clear();
        }
    }

    /// The client entered the game (PLAYER_READY): it spawns at the next
    /// player tick.
    pub fn ready(&mut self, cid: usize) {
        if let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) {
            p.in_game = true;
            if p.team != TEAM_SPECTATORS {
                p.spawning = true;
            }
        }
    }

    /// The client left (DROP): its character goes at once.
    pub fn drop_client(&mut self, cid: usize) {
        if cid < MAX_CLIENTS {
            self.kill_now(cid);
            self.players[cid] = None;
            self.pending[cid].clear();
        }
    }

    /// `Cl_Kill` (`OnKillNetMessage`): dies and respawns at the next
    /// player tick, unless it killed itself within `sv_kill_delay` or
    /// kill protection holds.
    pub fn kill(&mut self, cid: usize) {
        let tick = self.tick;
        let delay = self.config.sv_kill_delay;
        let protected = self.kill_protected(cid);
        let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) else {
            return;
        };
        if p.last_kill != 0 && p.last_kill + 50 * delay > tick || p.pause != Pause::None {
            return;
        }
        if self.chars[cid].is_none() || protected {
            return;
        }
        p.last_kill = tick;
        self.kill_now(cid);
        if let Some(p) = self.players[cid].as_mut()
            && p.team != TEAM_SPECTATORS
        {
            p.spawning = true;
        }
    }

    /// `Cl_SetTeam` (`OnSetTeamNetMessage`, `SetTeam`): the character dies;
    /// a player joining the game spawns after the respawn delay. Refused
    /// to a racer under kill protection.
    pub fn set_team(&mut self, cid: usize, team: i32) {
        let tick = self.tick;
        let protected = self.kill_protected(cid);
        let spam_protection = self.config.sv_spamprotection != 0;
        let team_change_delay = self.config.sv_team_change_delay;
        let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) else {
            return;
        };
        if p.team == team || !(TEAM_SPECTATORS..=0).contains(&team) {
            return;
        }
        if spam_protection
            && p.last_set_team != 0
            && p.last_set_team + 50 * team_change_delay > tick
        {
            return;
        }
        if protected {
            return;
        }
        if p.team_change_tick > tick {
            p.last_set_team = tick;
            return;
        }
        // A paused player may not change team ("Use /pause first then you
        // can kill": 16.4's OnMessage, 20.1's CanJoinTeam).
        if p.pause != Pause::None {
            return;
        }
        p.team = team;
        p.last_set_team = tick;
        p.team_change_tick = tick;
        self.kill_now(cid);
    }

    /// An input recorded for the coming tick.
    pub fn input(&mut self, cid: usize, input: PlayerInput) {
        if let Some(list) = self.pending.get_mut(cid) {
            list.push(input);
        }
    }

    /// The character of `cid` dies now (`KillCharacter`, `Die`): a
    /// death sound and a death effect where it stood.
    pub(super) fn kill_now(&mut self, cid: usize) {
        self.death_effects(cid);
        self.remove_character(cid);
    }

    /// `Die`'s sound and death effect where `cid`'s character stands.
    pub(super) fn death_effects(&mut self, cid: usize) {
        if let Some(pos) = self.chars[cid].as_ref().map(|c| c.pos) {
            self.effect(Effect::sound(pos, super::effects::sound::PLAYER_DIE));
            self.effect(Effect::death(pos, cid));
        }
    }

    /// The character of `cid` leaves the world, with no event (the
    /// model's own repair after a divergence), its snapshot ids freed.
    pub(super) fn remove_character(&mut self, cid: usize) {
        let ids = self.chars[cid].as_ref().map(|c| c.snap_ids);
        self.remove_character_keeping_ids(cid);
        for id in ids.into_iter().flatten() {
            self.snap_ids.free(id, self.tick);
        }
    }

    /// [`World::remove_character`], the ids still taken (a death in the
    /// world's tick: the player's tick deletes the character).
    pub(super) fn remove_character_keeping_ids(&mut self, cid: usize) {
        if self.chars[cid].take().is_some() {
            self.race_death(cid);
            self.cores.slots[cid] = None;
            self.paused_cores[cid] = None;
            self.order.retain(|&c| c != cid);
            self.cores.teams.solo[cid] = false;
            if let Some(p) = self.players[cid].as_mut() {
                p.prev_die_tick = p.die_tick;
                p.die_tick = self.tick;
            }
        }
    }

    /// The client ids with inputs recorded for the coming tick.
    pub fn with_inputs(&self) -> Vec<usize> {
        (0..MAX_CLIENTS)
            .filter(|&c| !self.pending[c].is_empty())
            .collect()
    }

    /// One server tick: the inputs for it, the world, the players.
    pub fn step(&mut self) {
        self.step_holding(&[]);
    }

    /// [`World::step`], but for the clients of `held` the tick's first
    /// input was one the file leaves out: DDNet 16.4 handles every input
    /// meant for a tick (`OnClientPredictedEarlyInput`, which records it)
    /// and moves with the first (`OnClientPredictedInput`), but its
    /// writer drops an input equal to the last one written. When a burst
    /// of inputs comes for one tick, its first may be that one: it is
    /// handled before the recorded ones, and the character moves with it.
    /// Which of the two DDNet did the file cannot tell; the position or
    /// the demo's item does ([`crate::simulation::Simulation`]).
    pub fn step_holding(&mut self, held: &[usize]) {
        self.carried_over = false;
        let before: Vec<Option<Vec2>> = match self.watch.is_empty() {
            true => Vec::new(),
            false => self
                .cores
                .slots
                .iter()
                .map(|c| c.as_ref().map(|c| c.pos))
                .collect(),
        };
        // Taken for the step and given back emptied (nothing records an
        // input while the world steps): no allocation a tick.
        let mut pending = std::mem::take(&mut self.pending);
        for &cid in held {
            let last = self.players.get(cid).and_then(|p| p.as_ref()?.last_input);
            if let (Some(last), Some(inputs)) = (last, pending.get_mut(cid))
                && !inputs.is_empty()
            {
                inputs.insert(0, last);
            }
        }
        // Inputs are applied while the server's tick is still the last.
        for (cid, inputs) in pending.iter().enumerate().take(self.players_end) {
            if !self.players[cid].as_ref().is_some_and(|p| p.in_game) {
                continue;
            }
            if inputs.is_empty() {
                if let Some(last) = self.players[cid].as_ref().and_then(|p| p.last_input) {
                    self.early_input(cid, last);
                }
                continue;
            }
            for &input in inputs {
                if let Some(p) = self.players[cid].as_mut() {
                    p.last_input = Some(input);
                    if self.release == Release::Ddnet20_1 {
                        p.input_arrived(input);
                    }
                }
                self.early_input(cid, input);
            }
        }
        self.tick += 1;
        self.stepping = true;
        self.snap_ids.set_between_ticks(false);
        for (cid, inputs) in pending.iter().enumerate().take(self.players_end) {
            let Some(p) = self.players[cid].as_ref().filter(|p| p.in_game) else {
                continue;
            };
            // 16.4 moves with the first input of the tick, 20.1 records one.
            let input = match inputs.first() {
                Some(&i) => i,
                None => match p.last_input {
                    Some(i) => i,
                    None => continue,
                },
            };
            self.predicted_input(cid, input);
        }
        pending.iter_mut().for_each(Vec::clear);
        self.pending = pending;
        self.world_tick();
        self.players_tick();
        self.stepping = false;
        self.snap_ids.set_between_ticks(true);
        if !before.is_empty() {
            self.watch_unmodelled(&before);
        }
    }

    /// Puts a new core in the slot of `cid`, with the global tuning until
    /// its first tick copies its zone's.
    pub(super) fn put_core(&mut self, cid: usize, core: Core) {
        self.cores.slots[cid] = Some(core);
        self.cores_end = self.cores_end.max(cid + 1);
        self.core_tuning.take_global(cid, &self.tunings);
    }

    /// One past the highest client id that ever had a core: [`World::core`]
    /// is `None` for every client id from it on.
    pub fn cores_end(&self) -> usize {
        self.cores_end
    }

    /// The tuning the core of `cid` last ticked with (its zone's).
    pub fn core_tuning(&self, cid: usize) -> &Tuning {
        self.core_tuning.get(cid)
    }

    /// The global tuning (what zone 0 and the weapons read).
    pub(super) fn global(&self) -> &Tuning {
        self.tunings.global()
    }

    /// `cid`'s character (or player) met `feature`, which this world
    /// does not model.
    /// Named once a life: the same feature again (every tick, say) adds
    /// nothing to what is not judged.
    pub(super) fn unmodelled(&mut self, cid: usize, feature: &str) {
        let life = self.character(cid).map(|c| c.spawn_tick);
        let again = self
            .unmodelled
            .iter()
            .rev()
            .find(|u| u.cid == Some(cid))
            .is_some_and(|u| u.feature == feature && life.is_some_and(|l| u.tick >= l));
        if again {
            return;
        }
        let pos = self.position(cid);
        self.unmodelled.push(Unmodelled {
            tick: self.tick,
            cid: Some(cid),
            pos,
            feature: feature.to_owned(),
        });
    }

    /// A 0.7 client's character is gone from the file while this world
    /// still has it: DDNet does not record a 0.7 client's team change
    /// ([`UNRECORDED_TEAM_CHANGE`]), so the world cannot know why. Named,
    /// and the player goes to the spectators as DDNet's did: by a message
    /// read before the tick the file ends the character at, so at the
    /// tick before's time (the die tick and the team change's, which time
    /// the way back), its death's events in that tick's snapshot. With
    /// `stepped`, this world has stepped that tick already (with the
    /// character, whose numbering is then redone); without, it is the
    /// world before it, and the step comes after.
    pub fn unrecorded_team_change(&mut self, cid: usize, stepped: bool) {
        if cid >= MAX_CLIENTS || self.character(cid).is_none() {
            return;
        }
        let len = self.unmodelled.len();
        self.unmodelled(cid, UNRECORDED_TEAM_CHANGE);
        // Noted at the tick the file shows it.
        if !stepped && let Some(u) = self.unmodelled.get_mut(len) {
            u.tick = self.tick.saturating_add(1);
        }
        self.kill_now(cid);
        let before = match stepped {
            true => {
                self.number_strong_weak();
                self.tick - 1
            }
            false => self.tick,
        };
        if let Some(p) = self.players[cid].as_mut() {
            p.team = TEAM_SPECTATORS;
            p.spawning = false;
            p.unrecorded_spectator = true;
            p.die_tick = before;
            p.last_set_team = before;
            p.team_change_tick = before;
        }
    }

    /// Some player is at the spectators by a team change the file does
    /// not record ([`World::unrecorded_team_change`]).
    pub fn awaits_unrecorded_team_change(&self) -> bool {
        self.players
            .iter()
            .flatten()
            .any(|p| p.unrecorded_spectator)
    }

    /// The file has a character for `cid`, who is at the spectators by a
    /// team change it does not record: its way back, `Cl_SetTeam` 0, is
    /// not recorded either. Asked of the world before the tick the
    /// character appears in: the message came before that tick, as DDNet
    /// spawns a player who joins the game at its first player tick after
    /// (then the world steps again). False when `Cl_SetTeam` could not
    /// have taken it back by then (the team change delay): what took its
    /// character was not a team change.
    pub fn unrecorded_team_change_back(&mut self, cid: usize) -> bool {
        let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) else {
            return false;
        };
        if !p.unrecorded_spectator {
            return false;
        }
        self.set_team(cid, 0);
        let Some(p) = self.players[cid].as_mut() else {
            return false;
        };
        p.unrecorded_spectator = p.team == TEAM_SPECTATORS;
        !p.unrecorded_spectator
    }

    /// What took `cid`'s character to the spectators was no team change
    /// after all ([`World::unrecorded_team_change_back`] refused): the
    /// player is back in the game.
    pub fn unrecorded_team_change_undone(&mut self, cid: usize) {
        if let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut)
            && p.unrecorded_spectator
        {
            p.unrecorded_spectator = false;
            p.team = 0;
        }
    }

    /// Everybody meets `feature`, which this world does not model, from
    /// now to the file's end (a setting of the header).
    pub fn unmodelled_everybody(&mut self, feature: &str) {
        self.unmodelled.push(Unmodelled {
            tick: self.tick,
            cid: None,
            pos: None,
            feature: feature.to_owned(),
        });
    }

    /// Puts `cid`'s character at `pos` (velocity and hook kept), makes
    /// one there if it has none, or removes it for `None`: after a
    /// divergence, so the next ticks are compared from the file's state.
    pub fn reseed(&mut self, cid: usize, pos: Option<Vec2>) {
        if cid >= MAX_CLIENTS {
            return;
        }
        let Some(pos) = pos else {
            self.remove_character(cid);
            return;
        };
        if self.chars[cid].is_none() {
            let last = self.players[cid]
                .as_ref()
                .and_then(|p| p.last_input)
                .unwrap_or_default();
            let mut core = Core::new(cid, pos);
            core.endless_hook = self.config.sv_endless_drag != 0;
            self.put_core(cid, core);
            self.chars[cid] =
                Some(Character::new(cid, pos, self.tick, last).hit_others(self.config.sv_hit != 0));
            self.order.insert(0, cid);
            if let Some(p) = self.players[cid].as_mut() {
                p.spawning = false;
            }
        }
        let slot = self.cores.slots[cid].as_mut();
        if let Some(core) = slot.or(self.paused_cores[cid].as_mut()) {
            core.pos = pos;
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.pos = pos;
        }
    }

    /// The player's name (`Cl_StartInfo`, `Cl_ChangeInfo`).
    pub fn set_name(&mut self, cid: usize, name: &[u8]) {
        if let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) {
            p.name = name.to_vec();
        }
    }
}
