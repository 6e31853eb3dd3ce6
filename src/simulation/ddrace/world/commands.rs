//! Console commands as the world takes them: chat commands (`/kill`,
//! `/spec`, `/pause`, ...), the test commands (cheats: `tele`, `super`,
//! weapons, freeze), and what is reported as not modelled.

use super::*;

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

    /// `/pause` (and `/spec` without `sv_pauseable`): toggles
    /// `PAUSE_PAUSED`, which needs a character.
    pub(super) fn toggle_pause(&mut self, cid: usize) {
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
}
