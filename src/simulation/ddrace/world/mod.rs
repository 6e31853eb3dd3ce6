//! The world a server ticks (`CGameWorld` with its players and
//! controller): who plays, who has a character, where they spawn, and one
//! tick of everything in DDNet's order (`CServer::Run`, `OnTick`).
//!
//! It is driven from outside, between ticks, with what a teehistorian file
//! records (joins, kills, team changes, inputs), then stepped one tick at
//! a time; after each step [`World::positions`] is what the file's
//! PLAYER records must say.

pub mod race;
mod tiles;

use super::character::{Character, PLAYERFLAG_CHATTING, PLAYERFLAG_SPEC_CAM, presses, weapon};
use super::config::Config;
use super::player::{Player, TEAM_SPECTATORS};
use super::weapons::{self, Laser, Projectile};
use crate::simulation::Release;
use crate::simulation::physics::Vec2;
use crate::simulation::physics::collision::Collision;
use crate::simulation::physics::core::{
    Core, CoreInput, Cores, MAX_CLIENTS, PHYSICAL_SIZE, clamp_vel, normalize,
};
use crate::simulation::physics::tuning::{Applied, Tuning, Tunings};
use crate::teehistorian::PlayerInput;
use serde::Serialize;

/// Game-layer indices from here on are entities (`ENTITY_OFFSET`).
const ENTITY_OFFSET: u8 = 255 - 16 * 4;
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

/// A pickup on the map.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pickup {
    /// Its centre.
    pub pos: Vec2,
    /// What it gives.
    pub kind: PickupKind,
}

/// Something happened that the simulation does not model: from here on,
/// the characters it touches may go where the file says and this world
/// does not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unmodelled {
    /// The tick it happened in.
    pub tick: i32,
    /// Whose doing it was.
    pub cid: usize,
    /// What DDNet feature.
    pub feature: String,
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
    pub version: Release,
    /// The last tick stepped.
    pub tick: i32,
    pub(super) col: std::sync::Arc<Collision>,
    /// The tuning, global and per zone.
    pub tunings: Tunings,
    /// The server settings.
    pub config: Config,
    /// Every character's core.
    pub cores: Cores,
    pub(super) chars: Vec<Option<Character>>,
    /// The character list, newest first: the order they tick in.
    pub(super) order: Vec<usize>,
    pub(super) players: Vec<Option<Player>>,
    /// Spawn points: default, red, blue.
    spawns: [Vec<Vec2>; 3],
    /// Pickups, newest first (the order they tick in).
    pickups: Vec<Pickup>,
    /// Inputs recorded for the coming tick, per client id, in file order.
    pending: Vec<Vec<PlayerInput>>,
    /// What was not modelled, in order.
    pub unmodelled: Vec<Unmodelled>,
    /// Projectiles, newest first.
    pub projectiles: Vec<Projectile>,
    /// Lasers, newest first.
    pub lasers: Vec<Laser>,
    /// The DDRace teams' states, starts and savegames.
    pub(super) race: race::Race,
}

impl World {
    /// A world on `col`'s map at `tick`, with no players: spawn points
    /// and pickups from the game layer's entities.
    pub fn new(
        version: Release,
        col: Collision,
        config: Config,
        tunings: Tunings,
        tick: i32,
    ) -> World {
        let mut spawns: [Vec<Vec2>; 3] = Default::default();
        let mut pickups = Vec::new();
        for y in 0..col.height() {
            for x in 0..col.width() {
                let index = col.index(x, y);
                if index < ENTITY_OFFSET {
                    continue;
                }
                let pos = Vec2::new(x as f32 * 32.0 + 16.0, y as f32 * 32.0 + 16.0);
                let kind = match index - ENTITY_OFFSET {
                    e @ 1..=3 => {
                        spawns[usize::from(e - 1)].push(pos);
                        continue;
                    }
                    6 => PickupKind::Armor,
                    7 => PickupKind::Health,
                    8 => PickupKind::Weapon(weapon::SHOTGUN),
                    9 => PickupKind::Weapon(weapon::GRENADE),
                    10 => PickupKind::Ninja,
                    11 => PickupKind::Weapon(weapon::LASER),
                    _ => continue,
                };
                // Each new entity goes to the head of its list.
                pickups.insert(0, Pickup { pos, kind });
            }
        }
        World {
            version,
            tick,
            col: std::sync::Arc::new(col),
            tunings,
            config,
            cores: Cores::new(version),
            chars: vec![None; MAX_CLIENTS],
            order: Vec::new(),
            players: vec![None; MAX_CLIENTS],
            spawns,
            pickups,
            pending: vec![Vec::new(); MAX_CLIENTS],
            unmodelled: Vec::new(),
            projectiles: Vec::new(),
            lasers: Vec::new(),
            race: race::Race::new(),
        }
    }

    /// Every character's client id and position, by client id.
    pub fn positions(&self) -> impl Iterator<Item = (usize, i32, i32)> + '_ {
        self.cores
            .slots
            .iter()
            .flatten()
            .map(|c| (c.id, c.pos.x as i32, c.pos.y as i32))
    }

    /// The core of `cid`'s character.
    pub fn core(&self, cid: usize) -> Option<&Core> {
        self.cores.slots.get(cid)?.as_ref()
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
                        core: self.cores.slots[cid].clone()?,
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
            self.players[cid] = Some(Player::new(self.tick));
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
        if p.last_kill != 0 && p.last_kill + 50 * delay > tick || p.paused {
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
    /// a player joining the game spawns after the respawn delay.
    pub fn set_team(&mut self, cid: usize, team: i32) {
        let tick = self.tick;
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
        if p.team_change_tick > tick {
            p.last_set_team = tick;
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

    /// The character of `cid` dies now (`KillCharacter`).
    pub(super) fn kill_now(&mut self, cid: usize) {
        if self.chars[cid].take().is_some() {
            self.race_death(cid);
            self.cores.slots[cid] = None;
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

    /// [`World::step`], but the characters of `held` move with the input
    /// they had, not the first one recorded for this tick: what DDNet
    /// 16.4 did when a tick had two inputs and the first, equal to the
    /// last one written, was not written again.
    pub fn step_holding(&mut self, held: &[usize]) {
        let pending = std::mem::replace(&mut self.pending, vec![Vec::new(); MAX_CLIENTS]);
        // Inputs are applied while the server's tick is still the last.
        for (cid, inputs) in pending.iter().enumerate() {
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
                }
                self.early_input(cid, input);
            }
        }
        self.tick += 1;
        for (cid, inputs) in pending.iter().enumerate() {
            let Some(p) = self.players[cid].as_ref().filter(|p| p.in_game) else {
                continue;
            };
            if held.contains(&cid) {
                continue;
            }
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
        self.world_tick();
        self.players_tick();
    }

    /// `OnPredictedEarlyInput`: flags, spawning by fire, firing.
    fn early_input(&mut self, cid: usize, input: PlayerInput) {
        let Some(p) = self.players[cid].as_mut() else {
            return;
        };
        p.player_flags = input.player_flags;
        let team = p.team;
        if self.chars[cid].is_none() && team != TEAM_SPECTATORS && input.fire & 1 != 0 {
            p.spawning = true;
        }
        if input.player_flags & PLAYERFLAG_CHATTING != 0 || p.paused {
            return;
        }
        if self.version == Release::Ddnet20_1 && input.player_flags & PLAYERFLAG_SPEC_CAM != 0 {
            return;
        }
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        ch.latest_prev_input = ch.latest_input;
        ch.latest_input = input;
        ch.num_inputs += 1;
        if ch.latest_input.target_x == 0 && ch.latest_input.target_y == 0 {
            ch.latest_input.target_y = -1;
        }
        if ch.num_inputs > 1 && team != TEAM_SPECTATORS {
            ch.handle_weapon_switch();
            self.fire_weapon(cid);
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.latest_prev_input = ch.latest_input;
        }
    }

    /// `OnPredictedInput`: the input the character moves with.
    fn predicted_input(&mut self, cid: usize, input: PlayerInput) {
        let Some(p) = self.players[cid].as_ref() else {
            return;
        };
        if p.player_flags & PLAYERFLAG_CHATTING != 0
            && input.player_flags & PLAYERFLAG_CHATTING != 0
            || p.paused
        {
            return;
        }
        if self.version == Release::Ddnet20_1 && input.player_flags & PLAYERFLAG_SPEC_CAM != 0 {
            return;
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.input = input;
            if ch.input.target_x == 0 && ch.input.target_y == 0 {
                ch.input.target_y = -1;
            }
            ch.saved_input = ch.input;
        }
    }

    /// `FireWeapon`: the hammer is modelled; other weapons that can move
    /// somebody are reported as unmodelled.
    fn fire_weapon(&mut self, cid: usize) {
        let tick = self.tick;
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        if ch.reload_timer != 0 {
            return;
        }
        ch.do_weapon_switch();
        let aim = Vec2::new(
            ch.latest_input.target_x as f32,
            ch.latest_input.target_y as f32,
        );
        let dir = normalize(aim);
        let active = ch.active_weapon;
        let full_auto = matches!(active, weapon::GRENADE | weapon::SHOTGUN | weapon::LASER)
            || ch.frozen_last_tick;
        let mut will_fire = presses(ch.latest_prev_input.fire, ch.latest_input.fire) > 0;
        if full_auto
            && ch.latest_input.fire & 1 != 0
            && active >= 0
            && ch.weapons[active as usize].ammo != 0
        {
            will_fire = true;
        }
        if !will_fire || ch.freeze_time != 0 {
            return;
        }
        if active < 0 || ch.weapons[active as usize].ammo == 0 {
            return;
        }
        let start = ch.pos + dir * PHYSICAL_SIZE * 0.75;
        let shooter_pos = ch.pos;
        match active {
            weapon::HAMMER => {
                let hits = self.hammer(cid, start, shooter_pos);
                if hits > 0 {
                    let delay = self.global().hammer_hit_fire_delay();
                    if let Some(ch) = self.chars[cid].as_mut() {
                        ch.reload_timer = (delay * 50.0 / 1000.0) as i32;
                    }
                }
            }
            weapon::GUN | weapon::GRENADE => {
                let grenade = active == weapon::GRENADE;
                let lifetime = if grenade {
                    self.global().grenade_lifetime()
                } else {
                    self.global().gun_lifetime()
                };
                let p = weapons::new_projectile(
                    active, cid as i32, start, dir, lifetime, grenade, tick,
                );
                self.projectiles.insert(0, p);
            }
            weapon::SHOTGUN | weapon::LASER => {
                let reach = self.global().laser_reach();
                let l = self
                    .weapons()
                    .new_laser(shooter_pos, dir, reach, cid as i32, active);
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
        let delay = self.fire_delay(active);
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.attack_tick = tick;
            if ch.reload_timer == 0 && active != -1 {
                ch.reload_timer = (delay * 50.0) as i32;
            }
        }
    }

    fn fire_delay(&self, w: i32) -> f32 {
        self.global().weapon_fire_delay(w).unwrap_or(0.0)
    }

    /// The global tuning (what zone 0 and the weapons read).
    pub(super) fn global(&self) -> &Tuning {
        self.tunings.global()
    }

    pub(super) fn unmodelled(&mut self, cid: usize, feature: &str) {
        self.unmodelled.push(Unmodelled {
            tick: self.tick,
            cid,
            feature: feature.to_owned(),
        });
    }

    /// A console command run by `cid` (-1 and below: the server) with
    /// `flags` (`CFGFLAG_CHAT` 128 for a chat command). Commands that only
    /// print or change what a client is sent do nothing here; commands
    /// whose effect a later record carries (`/team` → PLAYER_TEAM) too.
    /// Anything else is reported as unmodelled.
    pub fn console_command<A: std::ops::Deref<Target = [u8]>>(
        &mut self,
        cid: i32,
        flags: i32,
        command: &[u8],
        args: &[A],
    ) {
        const CHAT: i32 = 128;
        let name = String::from_utf8_lossy(command);
        let name = name.as_ref();
        if flags & CHAT == 0 {
            match self.tunings.apply_console(command, args) {
                Ok(Applied::NotTuning) => {}
                Ok(_) => return,
                Err(e) => return self.unmodelled_command(cid, &format!("{name}: {e}")),
            }
            match self.config.apply_console(command, args) {
                Ok(super::config::ConfigApplied::NotConfig) => {}
                Ok(_) => return,
                Err(e) => return self.unmodelled_command(cid, &format!("{name}: {e}")),
            }
        }
        // Prints, cosmetics, what a client sees.
        const NO_EFFECT: &[&str] = &[
            "info",
            "rules",
            "help",
            "credits",
            "cmdlist",
            "points",
            "rank",
            "top5",
            "top",
            "emote",
            "eyeemote",
            "timeout",
            "showothers",
            "showall",
            "specteam",
            "me",
            "w",
            "whisper",
            "c",
            "converse",
            "say",
            "broadcast",
            "status",
            "muteid",
            "unmuteid",
            "logout",
            "login",
            "mapinfo",
            "settings",
            "time",
            "timer",
            "saytime",
            "saytimeall",
            "dnd",
            "whispers",
            "teamrank",
            "teamtop5",
            // Their effect is the PLAYER_TEAM, PLAYER_SWAP and
            // TEAM_PRACTICE records that follow.
            "team",
            "swap",
            "practice",
            "record",
            "stoprecord",
        ];
        // Database queries count for `sv_sql_queries_delay`.
        const QUERIES: &[&str] = &[
            "rank", "teamrank", "top5", "teamtop5", "times", "points", "top", "mapinfo",
        ];
        let c = usize::try_from(cid).ok().filter(|&c| c < MAX_CLIENTS);
        if let Some(c) = c
            && flags & CHAT != 0
            && (QUERIES.contains(&name) || name == "load" && args.is_empty())
        {
            self.rate_limited(c);
            return;
        }
        if NO_EFFECT.contains(&name) {
            return;
        }
        match (c, flags & CHAT != 0, name) {
            (Some(c), true, "save") => self.save(c),
            (Some(c), true, "load") => self.load(c),
            (Some(c), true, "kill") => self.protected_kill(c),
            (Some(c), true, "spec") if self.config.sv_pauseable == 0 => self.toggle_pause(c),
            (Some(c), true, "pause") => self.toggle_pause(c),
            (Some(c), false, _) if self.test_command(c, name, args) => {}
            (Some(c), _, _) => self.unmodelled(c, &format!("console command `{name}`")),
            (None, _, _) => {
                let feature = format!("console command `{name}`");
                for c in self.order.clone() {
                    self.unmodelled(c, &feature);
                }
            }
        }
    }

    /// The test commands (`sv_test_cmds`) that act on the character of the
    /// client who runs them: weapons, moves, jumps, freeze, solo. False
    /// for any other command, or when an argument does not read.
    fn test_command<A: std::ops::Deref<Target = [u8]>>(
        &mut self,
        cid: usize,
        name: &str,
        args: &[A],
    ) -> bool {
        let int = |i: usize| -> Option<i32> {
            match args.get(i) {
                Some(a) => crate::simulation::console::int_arg(self.version, a).ok(),
                None => None,
            }
        };
        let tick = self.tick;
        let version = self.version;
        let freeze_delay = self.config.sv_freeze_delay;
        let (Some(ch), Some(core)) = (self.chars[cid].as_mut(), self.cores.slots[cid].as_mut())
        else {
            // Without a character these commands do nothing.
            return WEAPON_COMMANDS.contains(&name) || CHARACTER_COMMANDS.contains(&name);
        };
        let give = |ch: &mut Character, w: i32, remove: bool, tick: i32| {
            if w == weapon::NINJA {
                if remove {
                    ch.remove_ninja();
                } else {
                    ch.give_ninja(tick);
                }
                return;
            }
            if remove {
                if ch.active_weapon == w {
                    ch.active_weapon = weapon::GUN;
                }
                ch.weapons[w as usize].got = false;
            } else {
                ch.give_weapon(w);
            }
        };
        let mut moved = None;
        match name {
            "weapons" | "unweapons" => {
                for w in [weapon::SHOTGUN, weapon::GRENADE, weapon::LASER] {
                    give(ch, w, name == "unweapons", tick);
                }
            }
            "shotgun" | "unshotgun" => give(ch, weapon::SHOTGUN, name == "unshotgun", tick),
            "grenade" | "ungrenade" => give(ch, weapon::GRENADE, name == "ungrenade", tick),
            "laser" | "unlaser" | "rifle" | "unrifle" => {
                give(ch, weapon::LASER, name.starts_with("un"), tick)
            }
            "ninja" | "unninja" => give(ch, weapon::NINJA, name == "unninja", tick),
            "move" | "move_raw" => match (int(0), int(1)) {
                (Some(x), Some(y)) => {
                    let unit = if name == "move" { 32 } else { 1 };
                    moved = Some((unit * x, unit * y));
                }
                _ => return false,
            },
            "left" | "right" | "up" | "down" => {
                let n = match version {
                    Release::Ddnet16_4 => 1,
                    Release::Ddnet20_1 => int(0).unwrap_or(1),
                };
                let (x, y) = match name {
                    "left" => (-n, 0),
                    "right" => (n, 0),
                    "up" => (0, -n),
                    _ => (0, n),
                };
                moved = Some((32 * x, 32 * y));
            }
            "setjumps" => match int(0) {
                Some(j) => core.jumps = j,
                None => return false,
            },
            "endless_hook" | "unendless_hook" => core.endless_hook = name == "endless_hook",
            "infinite_jump" | "uninfinite_jump" => core.endless_jump = name == "infinite_jump",
            "freeze" => {
                ch.freeze_at(freeze_delay, tick, core.super_, version);
            }
            "unfreeze" => {
                ch.unfreeze();
            }
            "deep" | "undeep" => ch.deep_frozen = name == "deep",
            "livefreeze" | "unlivefreeze" => ch.live_frozen = name == "livefreeze",
            _ => return false,
        }
        if let Some((x, y)) = moved {
            // `MoveCharacter`: 20.1 also stops the character.
            core.pos = core.pos + Vec2::new(x as f32, y as f32);
            if version == Release::Ddnet20_1 {
                core.vel = Vec2::default();
            }
        }
        // Moves and weapons are cheats: the start line ignores the racer.
        if moved.is_some() || WEAPON_COMMANDS.contains(&name) {
            ch.ddrace_state = super::character::race::CHEAT;
        }
        true
    }

    /// `/pause` (and `/spec` without `sv_pauseable`): toggles
    /// `PAUSE_PAUSED`, which needs a character.
    fn toggle_pause(&mut self, cid: usize) {
        let has_char = self.chars[cid].is_some();
        if let Some(p) = self.players[cid].as_mut()
            && has_char
        {
            p.paused = !p.paused;
        }
    }

    /// Something this world does not model happened to everybody or to
    /// `cid`'s character (`cid` -1: the server's doing).
    pub fn unmodelled_command(&mut self, cid: i32, name: &str) {
        let feature = format!("console command `{name}`");
        match usize::try_from(cid) {
            Ok(c) if c < MAX_CLIENTS => self.unmodelled(c, &feature),
            _ => {
                for c in self.order.clone() {
                    self.unmodelled(c, &feature);
                }
            }
        }
    }

    /// Puts `cid`'s character at `pos` (velocity and hook kept), makes
    /// one there if it has none, or removes it for `None`: after a
    /// divergence, so the next ticks are compared from the file's state.
    pub fn reseed(&mut self, cid: usize, pos: Option<Vec2>) {
        if cid >= MAX_CLIENTS {
            return;
        }
        let Some(pos) = pos else {
            self.kill_now(cid);
            return;
        };
        if self.chars[cid].is_none() {
            let last = self.players[cid]
                .as_ref()
                .and_then(|p| p.last_input)
                .unwrap_or_default();
            let mut core = Core::new(cid, pos, *self.global());
            core.endless_hook = self.config.sv_endless_drag != 0;
            self.cores.slots[cid] = Some(core);
            self.chars[cid] = Some(Character::new(cid, pos, self.tick, last));
            self.order.insert(0, cid);
            if let Some(p) = self.players[cid].as_mut() {
                p.spawning = false;
            }
        }
        if let Some(core) = self.cores.slots[cid].as_mut() {
            core.pos = pos;
        }
        if let Some(ch) = self.chars[cid].as_mut() {
            ch.pos = pos;
        }
    }

    /// The hammer's blow: every character near the swing, in list order.
    fn hammer(&mut self, cid: usize, start: Vec2, shooter: Vec2) -> usize {
        let strength = self.global().hammer_strength();
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
                c.unfreeze();
            }
            hits += 1;
        }
        hits
    }

    /// What weapons work on.
    fn weapons(&mut self) -> weapons::Ctx<'_> {
        weapons::Ctx {
            tick: self.tick,
            tuning: self.tunings.global(),
            col: &self.col,
            rules: weapons::Rules::of(&self.config),
            cores: &mut self.cores,
            chars: &mut self.chars,
            order: &self.order,
            players: &self.players,
        }
    }

    /// `CGameWorld::Tick`: projectiles, lasers, pickups, then every
    /// character's first phase, then every character's move; what was
    /// destroyed goes at the end.
    fn world_tick(&mut self) {
        let tick = self.tick;
        let freeze_delay = self.config.sv_freeze_delay;
        let mut projectiles = std::mem::take(&mut self.projectiles);
        let mut lasers = std::mem::take(&mut self.lasers);
        {
            let mut ctx = self.weapons();
            for p in &mut projectiles {
                ctx.tick_projectile(p);
            }
            for l in &mut lasers {
                ctx.tick_laser(l);
            }
        }
        self.projectiles = projectiles;
        self.lasers = lasers;
        for pk in &self.pickups {
            for &cid in &self.order {
                let Some(ch) = self.chars[cid].as_mut() else {
                    continue;
                };
                if ch.pos.distance(pk.pos) >= PICKUP_REACH + PHYSICAL_SIZE {
                    continue;
                }
                let super_ = self.cores.slots[cid].as_ref().is_some_and(|c| c.super_);
                match pk.kind {
                    PickupKind::Health => {
                        ch.freeze_at(freeze_delay, tick, super_, self.version);
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
                        }
                        if ch.active_weapon >= weapon::SHOTGUN {
                            ch.set_weapon(weapon::HAMMER);
                        }
                    }
                    PickupKind::Weapon(w) => {
                        let slot = ch.weapons[w as usize];
                        if !slot.got || slot.ammo != -1 {
                            ch.give_weapon(w);
                        }
                    }
                    PickupKind::Ninja => ch.give_ninja(tick),
                }
            }
        }
        let order = self.order.clone();
        for &cid in &order {
            self.character_tick(cid);
        }
        for cid in std::mem::take(&mut self.cores.unseeded_choices) {
            self.unmodelled(cid, "teleporter with several outs, no seed in the header");
        }
        for &cid in &order {
            if self.chars[cid].is_none() {
                continue;
            }
            self.cores.move_core(cid, &self.col);
            if let Some(core) = self.cores.slots[cid].as_mut() {
                core.quantize();
                let pos = core.pos;
                if let Some(ch) = self.chars[cid].as_mut() {
                    ch.pos = pos;
                }
            }
        }
        self.projectiles.retain(|p| !p.marked);
        self.lasers.retain(|l| !l.marked);
    }

    /// `CCharacter::Tick` (with `PreTick`, `DDRaceTick`,
    /// `HandleWeapons` and `DDRacePostCoreTick`).
    fn character_tick(&mut self, cid: usize) {
        let tick = self.tick;
        let zone = self.tune_zone_of(cid);
        let tuning = *self.tunings.zone(zone);
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        // DDRaceTick: the input as it came, masked by freeze.
        ch.input = ch.saved_input;
        if ch.live_frozen {
            ch.input.direction = 0;
            ch.input.jump = 0;
        }
        if ch.freeze_time > 0 {
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
            core.tuning = tuning;
            core.input = input;
        }
        let no_weak_hook = self.config.sv_no_weak_hook != 0;
        self.cores.old_tele_hook = self.config.sv_old_teleport_hook != 0;
        self.cores.tick(cid, &self.col, true, !no_weak_hook);
        if no_weak_hook {
            // Only the deferred part would run here; see `step_no_weak_hook`.
            self.unmodelled(cid, "sv_no_weak_hook");
        }

        // HandleWeapons.
        self.weapons().handle_ninja(cid);
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
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
            ch.freeze_at(self.config.sv_freeze_delay, tick, false, self.version);
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

    /// More than 200 tiles outside the map (`GameLayerClipped`).
    pub(super) fn clipped(&self, p: Vec2) -> bool {
        let (x, y) = (
            crate::simulation::physics::round_to_int(p.x) / 32,
            crate::simulation::physics::round_to_int(p.y) / 32,
        );
        x < -200 || x > self.col.width() + 200 || y < -200 || y > self.col.height() + 200
    }

    /// A death inside the world's tick (`Die`): the player's tick removes
    /// the character, and the respawn delay counts from now.
    pub(super) fn die_in_world(&mut self, cid: usize) {
        self.kill_now(cid);
        if let Some(p) = self.players[cid].as_mut() {
            p.died_in_world = true;
        }
    }

    /// Every player's tick, in client id order: respawns.
    fn players_tick(&mut self) {
        for cid in 0..MAX_CLIENTS {
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
            if std::mem::take(&mut p.died_in_world) || has_char {
                continue;
            }
            if p.spawning {
                self.try_respawn(cid);
            }
        }
    }

    /// `TryRespawn`: a character at the best spawn point.
    fn try_respawn(&mut self, cid: usize) {
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
        let mut core = Core::new(cid, pos, *self.global());
        core.endless_hook = self.config.sv_endless_drag != 0;
        self.cores.slots[cid] = Some(core);
        self.chars[cid] = Some(Character::new(cid, pos, self.tick, last_input));
        self.order.insert(0, cid);
    }

    /// The player's name (`Cl_StartInfo`, `Cl_ChangeInfo`).
    pub fn set_name(&mut self, cid: usize, name: &[u8]) {
        if let Some(p) = self.players.get_mut(cid).and_then(Option::as_mut) {
            p.name = name.to_vec();
        }
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
            && !(self.version == Release::Ddnet20_1
                && self.cores.slots[cid]
                    .as_ref()
                    .is_some_and(|c| c.collision_disabled));
        for (kind, points) in self.spawns.iter().enumerate() {
            match self.version {
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
    fn free_offset(&self, cid: usize, point: Vec2, collision: bool) -> Option<Vec2> {
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
                let can_collide = match self.version {
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
    fn spawn_score(&self, cid: usize, p: Vec2) -> f32 {
        let mut score = 0.0f32;
        let teams = &self.cores.teams;
        for &c in &self.order {
            let counts = match self.version {
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
