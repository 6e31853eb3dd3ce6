//! Console commands as the world takes them: chat commands (`/kill`,
//! `/spec`, `/pause`, ...), the test commands (cheats: `tele`, `super`,
//! weapons, freeze), and what is reported as not modelled.

use super::*;
use crate::simulation::physics::core::hook;

impl World {
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
                Ok(crate::simulation::ddrace::config::ConfigApplied::NotConfig) => {}
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
            (Some(c), true, "spec" | "pause") if !args.is_empty() => self.unmodelled(
                c,
                &format!("console command `{name}` with a player to watch"),
            ),
            (Some(c), true, "spec") => self.toggle_pause(c, self.spec_pause_type(c)),
            (Some(c), true, "pause") => self.toggle_pause(c, Pause::Paused),
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
    pub(super) fn test_command<A: std::ops::Deref<Target = [u8]>>(
        &mut self,
        cid: usize,
        name: &str,
        args: &[A],
    ) -> bool {
        let int = |i: usize| -> Option<i32> {
            match args.get(i) {
                Some(a) => crate::simulation::console::int_arg(self.release, a).ok(),
                None => None,
            }
        };
        let tick = self.tick;
        let release = self.release;
        let freeze_delay = self.config.sv_freeze_delay;
        let (Some(ch), Some(core)) = (self.chars[cid].as_mut(), self.cores.slots[cid].as_mut())
        else {
            // Without a character these commands do nothing.
            return WEAPON_COMMANDS.contains(&name) || CHARACTER_COMMANDS.contains(&name);
        };
        let give = |ch: &mut Character, w: i32, remove: bool, tick: i32| {
            if w == weapon::NINJA {
                if remove {
                    ch.remove_ninja(release);
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
                let n = match release {
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
                ch.freeze_at(freeze_delay, tick, core.super_, release);
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
            if release == Release::Ddnet20_1 {
                core.vel = Vec2::default();
            }
        }
        // Moves and weapons are cheats: the start line ignores the racer.
        if moved.is_some() || WEAPON_COMMANDS.contains(&name) {
            ch.ddrace_state = crate::simulation::ddrace::character::race::CHEAT;
        }
        true
    }

    /// What `/spec` asks for (`ConToggleSpec`): spectating with
    /// `sv_pauseable`, else a pause; in 20.1 spectating too for a
    /// character in a practice team.
    fn spec_pause_type(&self, cid: usize) -> Pause {
        let team = self.cores.teams.team[cid];
        let practice = self.release == Release::Ddnet20_1
            && self.chars[cid].is_some()
            && self.is_practice(team);
        match self.config.sv_pauseable != 0 || practice {
            true => Pause::Spec,
            false => Pause::Paused,
        }
    }

    /// `/pause` and `/spec` without a name (`ToggleSpecPause`): any pause
    /// ends, else `want` begins.
    pub(super) fn toggle_pause(&mut self, cid: usize, want: Pause) {
        let Some(p) = self.players[cid].as_ref() else {
            return;
        };
        match p.pause {
            Pause::None => self.set_pause(cid, want, false),
            _ => self.set_pause(cid, Pause::None, false),
        }
    }

    /// `CPlayer::Pause(State, Force)`: needs a character; a paused one
    /// comes back into the world (unless the player spectates on), but
    /// not within `sv_pause_frequency` of the last change unless forced.
    pub(super) fn set_pause(&mut self, cid: usize, state: Pause, force: bool) {
        let (tick, frequency) = (self.tick, self.config.sv_pause_frequency);
        let (Some(ch), Some(p)) = (self.chars[cid].as_ref(), self.players[cid].as_ref()) else {
            return;
        };
        if state == p.pause {
            return;
        }
        if state != Pause::Spec && ch.paused {
            if !force && p.last_pause != 0 && p.last_pause + 50 * frequency > tick {
                return;
            }
            self.pause_character(cid, false);
            if let Some(pos) = self.chars[cid].as_ref().map(|c| c.pos) {
                self.effect(Effect::spawn(pos));
            }
        }
        if let Some(p) = self.players[cid].as_mut() {
            p.pause = state;
            p.last_pause = tick;
        }
    }

    /// `CCharacter::Pause`: the character leaves the world (out of the
    /// list and of `m_apCharacters`; a hook it holds on a player lets
    /// go, and so do the hooks on it, but only then) or comes back at the
    /// list's head, standing still, in 20.1 its freeze's start moved by
    /// the time away.
    pub(super) fn pause_character(&mut self, cid: usize, pause: bool) {
        let tick = self.tick;
        let Some(ch) = self.chars[cid].as_mut() else {
            return;
        };
        if ch.paused == pause {
            return;
        }
        ch.paused = pause;
        if !pause {
            // 16.4 keeps the start (a freeze tile met on return then
            // starts a new freeze: its recordings say so).
            if self.release == Release::Ddnet20_1 && ch.freeze_start > 0 && ch.paused_tick >= 0 {
                ch.freeze_start += tick - ch.paused_tick;
            }
            if let Some(mut core) = self.paused_cores[cid].take() {
                core.vel = Vec2::default();
                self.cores.slots[cid] = Some(core);
            }
            self.order.insert(0, cid);
            return;
        }
        ch.paused_tick = tick;
        self.order.retain(|&c| c != cid);
        let Some(mut core) = self.cores.slots[cid].take() else {
            return;
        };
        if core.hooked_player != -1 {
            // `ResetHook`, then `CGameWorld::ReleaseHooked`.
            core.hooked_player = -1;
            core.hook_state = hook::RETRACTED;
            core.hook_pos = core.pos;
            for &c in &self.order {
                if let Some(other) = self.cores.slots[c].as_mut()
                    && other.hooked_player == cid as i32
                    && !other.super_
                {
                    other.hooked_player = -1;
                    other.hook_state = hook::RETRACTED;
                }
            }
        }
        self.paused_cores[cid] = Some(core);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::Tile;

    /// A 20 by 10 map with a floor on row 8 and spawns at tiles (2, 7)
    /// and (10, 7), `sv_pauseable 1`; clients 0 and 1 (the newer
    /// character) standing on the floor.
    fn world(release: Release) -> World {
        let (w, h) = (20, 10);
        let mut tiles = vec![Tile::default(); w * h];
        for t in &mut tiles[8 * w..9 * w] {
            t.index = 1;
        }
        tiles[7 * w + 2].index = 192;
        tiles[7 * w + 10].index = 192;
        let col = Collision::new(w as i32, h as i32, &tiles).expect("a grid");
        let mut config = Config::new(release);
        config.sv_pauseable = 1;
        let tunings = Tunings::new(release, Tuning::ddrace(release));
        let mut world = World::new(release, col, config, tunings, 0);
        world.join(0);
        world.ready(0);
        world.step();
        world.join(1);
        world.ready(1);
        for _ in 0..60 {
            world.step();
        }
        world
    }

    fn chat(w: &mut World, cid: i32, command: &str) {
        w.console_command(cid, 128, command.as_bytes(), &[] as &[Vec<u8>]);
    }

    fn strong_weak(w: &World, cid: usize) -> i32 {
        w.character(cid).expect("a character").strong_weak_id
    }

    #[test]
    fn spec_takes_a_standing_character_out_of_the_world_and_back() {
        for release in [Release::Ddnet16_4, Release::Ddnet20_1] {
            let mut w = world(release);
            assert_eq!(w.order(), &[1, 0]);
            assert_eq!((strong_weak(&w, 1), strong_weak(&w, 0)), (0, 1));
            let at = w.core(1).expect("a core").pos;
            chat(&mut w, 1, "spec");
            w.step();
            // Out of the list and of the cores the others meet, its core
            // kept where it stood; numbered before it left.
            assert!(w.character(1).is_some_and(|c| c.paused));
            assert_eq!(w.order(), &[0]);
            assert!(w.cores.slots[1].is_none());
            assert_eq!(w.core(1).map(|c| c.pos), Some(at));
            assert_eq!(strong_weak(&w, 0), 1);
            w.step();
            assert_eq!(strong_weak(&w, 0), 0);
            // Not back within sv_pause_frequency (a second).
            chat(&mut w, 1, "spec");
            assert!(w.character(1).is_some_and(|c| c.paused));
            for _ in 0..50 {
                w.step();
            }
            chat(&mut w, 1, "spec");
            assert_eq!(w.player(1).map(|p| p.pause), Some(Pause::None));
            assert_eq!(w.order(), &[1, 0]);
            assert_eq!(
                w.core(1).map(|c| (c.pos, c.vel)),
                Some((at, Vec2::default()))
            );
        }
    }

    #[test]
    fn spec_without_sv_pauseable_only_holds_the_inputs() {
        let mut w = world(Release::Ddnet20_1);
        w.config.sv_pauseable = 0;
        chat(&mut w, 1, "spec");
        w.step();
        assert_eq!(w.player(1).map(|p| p.pause), Some(Pause::Paused));
        assert!(w.character(1).is_some_and(|c| !c.paused));
        assert_eq!(w.order(), &[1, 0]);
    }
}
