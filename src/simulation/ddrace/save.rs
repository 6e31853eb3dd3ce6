//! DDNet's savegames (`CSaveTee` and `CSaveTeam`, `src/game/server/save.cpp`):
//! a team's characters written as text by `/save` and read back by
//! `/load`, and the same capture applied crosswise by `/swap`.
//!
//! A teehistorian file records what the database thread answered:
//! TEAM_SAVE_SUCCESS and TEAM_LOAD_SUCCESS carry the team's string, and a
//! load puts every character exactly where that string says. The string
//! writes positions as whole numbers (`(int)m_Pos.x`) and velocities with
//! six decimals (`%f`), so a loaded character is not the one that was
//! saved; [`SavedTeam::parse`] reads it as DDNet's `sscanf` does, with
//! each release's fallbacks for strings written by older servers.

use crate::simulation::Release;
use crate::simulation::physics::Vec2;
use serde::Serialize;

/// The most members a savegame may list (`CSaveTeam::FromString`).
pub const MAX_MEMBERS: usize = 64;
/// A member's line must be shorter than this (`aSaveTee[1024]`).
const MAX_TEE_LINE: usize = 1024;
/// The team's line must be shorter than this (`aTeamStats[MAX_CLIENTS]`).
const MAX_TEAM_LINE: usize = 64;

/// A team as a savegame holds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SavedTeam {
    /// The team's `TEAMSTATE_*` when saved.
    pub team_state: i32,
    /// The members, in the order saved (the world's character order).
    pub members: Vec<SavedTee>,
    /// `m_HighestSwitchNumber`: switch states follow the members.
    pub highest_switch_number: i32,
    /// The team's switches 1 to the highest number, each (on, ticks
    /// since its timed end (0: none), the switch tile that set it last).
    pub switchers: Vec<(i32, i32, i32)>,
    /// The team was locked.
    pub locked: bool,
    /// The team was in practice mode.
    pub practice: bool,
}

/// One character of a savegame: what `CSaveTee::Load` puts back. Fields
/// DDNet keeps only for the race's time and messages are left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SavedTee {
    /// The player's name: a load matches members by it.
    pub name: String,
    /// `abs(IsPaused())`: 1 paused, 2 spectating.
    pub paused: i32,
    /// `m_IsSolo`.
    pub solo: bool,
    /// Which of the six weapons it has.
    pub weapons_got: [bool; 6],
    /// The weapon before the active one.
    pub last_weapon: i32,
    /// A switch waiting for the reload (-1 none).
    pub queued_weapon: i32,
    /// `m_EndlessJump`.
    pub endless_jump: bool,
    /// `m_Jetpack`.
    pub jetpack: bool,
    /// `m_NinjaJetpack` (not modelled when set).
    pub ninja_jetpack: bool,
    /// Ticks of freeze left.
    pub freeze_time: i32,
    /// The tick of the save minus the freeze's start (`Tick() -
    /// m_FreezeStart`; the tick itself when not frozen).
    pub freeze_age: i32,
    /// `m_DeepFrozen`.
    pub deep_frozen: bool,
    /// `m_LiveFrozen`.
    pub live_frozen: bool,
    /// `m_EndlessHook`.
    pub endless_hook: bool,
    /// `m_DDRaceState` (`DDRACE_*`).
    pub ddrace_state: i32,
    /// The race's ticks so far plus `sv_saveswapgames_penalty` (0: not
    /// racing).
    pub time: i32,
    /// Hammer, shotgun, grenade, laser hits disabled (bits 1, 2, 4, 8).
    pub hit_disabled_flags: i32,
    /// Others collide with it.
    pub collision_enabled: bool,
    /// Its hook hits players.
    pub hook_hit_enabled: bool,
    /// The character's position (`m_Pos`).
    pub pos: Vec2,
    /// Its position the tick before (`m_PrevPos`).
    pub prev_pos: Vec2,
    /// The last checkpoint passed (`m_TeleCheckpoint`).
    pub tele_checkpoint: i32,
    /// The core's position.
    pub core_pos: Vec2,
    /// The core's velocity.
    pub vel: Vec2,
    /// The weapon in hand.
    pub active_weapon: i32,
    /// `m_Jumped`.
    pub jumped: i32,
    /// `m_JumpedTotal`.
    pub jumped_total: i32,
    /// `m_Jumps`.
    pub jumps: i32,
    /// Where the hook is.
    pub hook_pos: Vec2,
    /// Where a flying hook goes.
    pub hook_dir: Vec2,
    /// Where a teleported hook measures from.
    pub hook_tele_base: Vec2,
    /// Ticks the hook has held.
    pub hook_tick: i32,
    /// The hook's state.
    pub hook_state: i32,
    /// Telegun on gun, laser, grenade (not modelled when set).
    pub telegun: [bool; 3],
    /// Whom the hook holds: in a string, the member's index in the
    /// team; captured from a world, a client id (-1 none).
    pub hooked_player: i32,
    /// `m_NewHook`.
    pub new_hook: bool,
    /// The saved input's direction, jump, fire and hook.
    pub input: [i32; 4],
    /// Ticks until the weapon fires again.
    pub reload_timer: i32,
    /// Crossed the start line in its team (`m_TeeStarted`).
    pub tee_started: bool,
    /// The ninja's dash (DDNet 20.1): direction, ticks since it was
    /// picked up (0: not), dash ticks left, speed to give back.
    pub ninja: Option<(Vec2, i32, i32, i32)>,
}

/// How many fields of a member's line each release accepts (`switch(Num)`
/// in `CSaveTee::FromString`): the fields of older servers' strings.
fn accepted(release: Release, fields: usize) -> bool {
    match release {
        Release::Ddnet16_4 => matches!(fields, 96 | 97 | 101 | 108 | 109 | 110),
        Release::Ddnet20_1 => matches!(fields, 96 | 97 | 101 | 108 | 109 | 110 | 115),
    }
}

impl SavedTeam {
    /// Reads a savegame string as `CSaveTeam::FromString` does: the
    /// team's line, then one line per member. The error says what DDNet
    /// would have refused.
    pub fn parse(text: &[u8], release: Release) -> Result<SavedTeam, String> {
        // The string ends at a NUL as C's does.
        let text = text.split(|&b| b == 0).next().unwrap_or_default();
        let mut lines = text.split(|&b| b == b'\n');
        let head = lines.next().unwrap_or_default();
        if head.len() + 1 >= MAX_TEAM_LINE {
            return Err("the team's line is too long".into());
        }
        let head = String::from_utf8_lossy(head);
        let mut s = Scan::new(&head);
        let (team_state, members, switches, locked) = (s.int(), s.int(), s.int(), s.int());
        let practice = s.int();
        let (Some(team_state), Some(count), Some(highest_switch_number), Some(locked)) =
            (team_state, members, switches, locked)
        else {
            return Err(format!(
                "the team's line has {} numbers, not 4 or 5",
                s.fields
            ));
        };
        let count = usize::try_from(count).unwrap_or(0);
        if count > MAX_MEMBERS {
            return Err(format!("{count} members (at most {MAX_MEMBERS})"));
        }
        let mut members = Vec::with_capacity(count);
        for n in 0..count {
            let line = lines.next().unwrap_or_default();
            if line.len() + 1 >= MAX_TEE_LINE {
                return Err(format!("member {n}'s line is too long"));
            }
            let tee = SavedTee::parse(&String::from_utf8_lossy(line), release)
                .map_err(|e| format!("member {n}: {e}"))?;
            members.push(tee);
        }
        if !(0..=255).contains(&highest_switch_number) {
            return Err(format!(
                "highest switch number {highest_switch_number} (0 to 255)"
            ));
        }
        // A line each, `%d\t%d\t%d` (DDNet leaves a line that has fewer
        // as memory left it: refused here).
        let mut switchers = Vec::new();
        for n in 1..=highest_switch_number {
            let line = String::from_utf8_lossy(lines.next().unwrap_or_default());
            let mut s = Scan::new(&line);
            match (s.int(), s.int(), s.int()) {
                (Some(on), Some(end), Some(kind)) => switchers.push((on, end, kind)),
                _ => return Err(format!("switch {n}'s line has {} numbers, not 3", s.fields)),
            }
        }
        Ok(SavedTeam {
            team_state,
            members,
            highest_switch_number,
            switchers,
            locked: locked != 0,
            practice: practice.is_some_and(|p| p != 0),
        })
    }
}

impl SavedTee {
    /// One member's line (`CSaveTee::FromString`).
    fn parse(line: &str, release: Release) -> Result<SavedTee, String> {
        let mut s = Scan::new(line);
        let name_limit = match release {
            Release::Ddnet16_4 => usize::MAX,
            Release::Ddnet20_1 => 15,
        };
        let name = s.name(name_limit).unwrap_or_default().to_owned();
        let (_alive, paused, _faketuning, _finished, solo) = (s.i(), s.i(), s.i(), s.i(), s.b());
        let mut weapons_got = [false; 6];
        for got in &mut weapons_got {
            let (_regen_start, _ammo, _ammocost) = (s.i(), s.i(), s.i());
            *got = s.b();
        }
        let (last_weapon, queued_weapon) = (s.i(), s.i());
        let (endless_jump, jetpack, ninja_jetpack) = (s.b(), s.b(), s.b());
        let (freeze_time, freeze_age, deep_frozen, endless_hook) = (s.i(), s.i(), s.b(), s.b());
        let (ddrace_state, hit_disabled_flags, collision_enabled) = (s.i(), s.i(), s.b());
        let (_tune_zone, _tune_zone_old, hook_hit_enabled, time) = (s.i(), s.i(), s.b(), s.i());
        let (pos, prev_pos) = (s.v(), s.v());
        let (tele_checkpoint, _last_penalty) = (s.i(), s.i());
        let (core_pos, vel) = (s.v(), s.v());
        let (mut active_weapon, jumped, jumped_total, jumps) = (s.i(), s.i(), s.i(), s.i());
        let (hook_pos, hook_dir, hook_tele_base) = (s.v(), s.v(), s.v());
        let (hook_tick, mut hook_state) = (s.i(), s.i());
        let (_cp_end, _last_cp, _last_cp_broadcasted) = (s.i(), s.i(), s.i());
        for _ in 0..25 {
            s.float();
        }
        let _not_eligible = s.i();
        let mut telegun = [s.b(), s.b(), s.b()];
        s.word(36);
        let (mut hooked_player, mut new_hook) = (s.i(), s.b());
        let mut input = [s.i(), s.i(), s.i(), s.i()];
        let mut reload_timer = s.i();
        let mut tee_started = s.b();
        let mut live_frozen = s.b();
        // 16.4's format ends here: what follows is not read.
        let mut ninja = match release {
            Release::Ddnet16_4 => None,
            Release::Ddnet20_1 => Some((s.v(), s.i(), s.i(), s.i())),
        };
        // Every conversion counts: `sscanf` stops at the first that fails.
        let fields = s.fields;
        if !accepted(release, fields) {
            return Err(format!("{fields} fields read, a count DDNet refuses"));
        }
        // The fallthroughs of `switch(Num)`: what older strings lack.
        if fields <= 101 {
            hooked_player = -1;
            new_hook = false;
            if hook_state == crate::simulation::physics::core::hook::GRABBED {
                hook_state = crate::simulation::physics::core::hook::FLYING;
            }
            input = [0; 4];
            reload_timer = 0;
        }
        if fields <= 108 {
            tee_started = true;
        }
        if fields <= 109 {
            live_frozen = false;
        }
        if fields <= 97 {
            telegun = [false; 3];
        }
        if release == Release::Ddnet20_1 && fields <= 110 {
            // 20.1 takes ninja away from strings without the dash.
            if weapons_got[super::character::weapon::NINJA as usize] {
                weapons_got[super::character::weapon::NINJA as usize] = false;
                active_weapon = last_weapon;
            }
            ninja = Some((Vec2::default(), 0, 0, 0));
        }
        if release == Release::Ddnet20_1 {
            let weapon = |w: i32| (0..6).contains(&w);
            if !weapon(last_weapon)
                || !(weapon(queued_weapon) || queued_weapon == -1)
                || !weapon(active_weapon)
            {
                return Err("a weapon out of range".into());
            }
        }
        Ok(SavedTee {
            name,
            paused,
            solo,
            weapons_got,
            last_weapon,
            queued_weapon,
            endless_jump,
            jetpack,
            ninja_jetpack,
            freeze_time,
            freeze_age,
            deep_frozen,
            live_frozen,
            endless_hook,
            ddrace_state,
            time,
            hit_disabled_flags,
            collision_enabled,
            hook_hit_enabled,
            pos,
            prev_pos,
            tele_checkpoint,
            core_pos,
            vel,
            active_weapon,
            jumped,
            jumped_total,
            jumps,
            hook_pos,
            hook_dir,
            hook_tele_base,
            hook_tick,
            hook_state,
            telegun,
            hooked_player,
            new_hook,
            input,
            reload_timer,
            tee_started,
            ninja,
        })
    }
}

/// `sscanf` over DDNet's own strings: a whitespace directive between
/// conversions, `%d`, `%f`, `%s`, `%[^\t]`; `fields` counts the
/// conversions until the first that fails, after which none succeeds.
struct Scan<'a> {
    rest: &'a str,
    fields: usize,
    failed: bool,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Scan<'a> {
        Scan {
            rest: text,
            fields: 0,
            failed: false,
        }
    }

    /// The next whitespace-free token, if a conversion may still run.
    fn token(&mut self, max: usize) -> Option<&'a str> {
        if self.failed {
            return None;
        }
        let rest = self
            .rest
            .trim_start_matches(|c: char| c.is_ascii_whitespace());
        let end = rest
            .char_indices()
            .take(max)
            .find(|(_, c)| c.is_ascii_whitespace())
            .map_or_else(
                || rest.char_indices().nth(max).map_or(rest.len(), |(i, _)| i),
                |(i, _)| i,
            );
        let (token, rest) = rest.split_at(end);
        self.rest = rest;
        Some(token)
    }

    fn done<T>(&mut self, v: Option<T>) -> Option<T> {
        match v {
            Some(v) => {
                self.fields += 1;
                Some(v)
            }
            None => {
                self.failed = true;
                None
            }
        }
    }

    /// `%d`: C's `int` of the number (wrapping, as glibc stores a long).
    fn int(&mut self) -> Option<i32> {
        let t = self.token(usize::MAX)?;
        let v = t.parse::<i64>().ok().map(|v| v as i32);
        self.done(v)
    }

    /// `%d`, 0 where it failed (DDNet leaves such fields as they were,
    /// and refuses the string unless an older release's count).
    fn i(&mut self) -> i32 {
        self.int().unwrap_or(0)
    }

    /// `%d` as a flag.
    fn b(&mut self) -> bool {
        self.i() != 0
    }

    /// Two `%f`.
    fn v(&mut self) -> Vec2 {
        let x = self.float().unwrap_or(0.0);
        Vec2::new(x, self.float().unwrap_or(0.0))
    }

    /// `%f`: the nearest `float`.
    fn float(&mut self) -> Option<f32> {
        let t = self.token(usize::MAX)?;
        let v = t.parse::<f32>().ok();
        self.done(v)
    }

    /// `%Ns`.
    fn word(&mut self, max: usize) -> Option<&'a str> {
        let t = self.token(max)?;
        let v = (!t.is_empty()).then_some(t);
        self.done(v)
    }

    /// `%[^\t]` (at most `max` bytes): the name, which may hold spaces.
    fn name(&mut self, max: usize) -> Option<&'a str> {
        if self.failed {
            return None;
        }
        let end = self.rest.find('\t').unwrap_or(self.rest.len());
        let mut end = end.min(max);
        while !self.rest.is_char_boundary(end) {
            end -= 1;
        }
        let (name, rest) = self.rest.split_at(end);
        self.rest = rest;
        let v = (!name.is_empty()).then_some(name);
        self.done(v)
    }
}

#[cfg(test)]
/// The team DDNet 16.4 saved in `phys_save_load_tsunami` (its
/// TEAM_LOAD_SUCCESS record, byte for byte): b on the ground, a in the
/// air.
pub(super) const SAVED: &str = concat!(
    "2\t2\t0\t0\t0\nb\t1\t0\t0\t0\t0\t0\t-1\t0\t1\t0\t-1\t0\t1\t0\t0\t0\t0\t0\t0\t",
    "0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t-1\t0\t0\t0\t0\t430\t0\t0\t1\t0\t1\t0\t0\t",
    "1\t3172\t1681\t5905\t1681\t5905\t0\t0\t1681\t5905\t0.000000\t0.000000\t1\t0\t",
    "0\t2\t1711\t5875\t0.707031\t-0.707031\t0\t0\t0\t-1\t0\t-1\t-1\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0\t0\t0\t0\t",
    "891cb87f-a4ad-4529-b17a-d79b2880f5dd\t-1\t0\t0\t0\t0\t1\t0\t1\t0\na\t1\t0\t",
    "0\t0\t0\t0\t-1\t0\t1\t0\t-1\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t",
    "0\t0\t0\t-1\t0\t0\t0\t0\t430\t0\t0\t1\t0\t1\t0\t0\t1\t3172\t1620\t5833\t",
    "1620\t5844\t0\t0\t1620\t5833\t0.003906\t-10.699219\t1\t1\t0\t2\t1620\t5844\t",
    "0.000000\t0.000000\t0\t0\t0\t0\t0\t-1\t-1\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t0.000000\t",
    "0.000000\t0\t0\t0\t0\t891cb87f-a4ad-4529-b17a-d79b2880f5dd\t-1\t0\t0\t1\t0\t",
    "0\t0\t1\t0",
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_16_4_save_reads_as_ddnet_reads_it() {
        let line = SAVED.lines().nth(1).unwrap();
        assert_eq!(line.split('\t').count(), 110);
        let team = SavedTeam::parse(SAVED.as_bytes(), Release::Ddnet16_4).unwrap();
        assert_eq!((team.team_state, team.members.len()), (2, 2));
        let a = &team.members[1];
        assert_eq!(
            (a.name.as_str(), a.core_pos.y, a.prev_pos.y),
            ("a", 5833.0, 5844.0)
        );
        // Six decimals, read as the nearest float.
        assert_eq!((a.vel.x, a.vel.y), (0.003906_f32, -10.699219_f32));
        assert_eq!(
            (a.active_weapon, a.jumped, a.jumped_total, a.input),
            (1, 1, 0, [0, 1, 0, 0])
        );
        assert_eq!(team.members[0].input, [0, 0, 0, 1]);
        let b = &team.members[0];
        assert_eq!(b.name, "b");
        assert_eq!((b.core_pos.x, b.core_pos.y), (1681.0, 5905.0));
        assert_eq!(
            (b.hook_pos.x, b.hook_dir.x, b.hook_dir.y),
            (1711.0, 0.707031, -0.707031)
        );
        assert_eq!(
            (b.hook_state, b.hooked_player, b.jumps, b.freeze_age),
            (-1, -1, 2, 430)
        );
        assert_eq!(b.weapons_got, [true, true, false, false, false, false]);
        assert!(b.tee_started && b.collision_enabled && b.hook_hit_enabled);
        assert_eq!(b.ninja, None);
        // 20.1 reads the same 110 fields, and gives no ninja.
        let b20 = &SavedTeam::parse(SAVED.as_bytes(), Release::Ddnet20_1)
            .unwrap()
            .members[0];
        assert_eq!(b20.ninja, Some((Vec2::default(), 0, 0, 0)));
        assert_eq!(b20.core_pos, b.core_pos);
    }

    /// SAVED's first member alone, its line cut to `fields` fields, some
    /// set to other values, `extra` appended.
    fn cut(fields: usize, set: &[(usize, &str)], extra: &str) -> String {
        let line = SAVED.lines().nth(1).unwrap();
        let mut kept: Vec<&str> = line.split('\t').take(fields).collect();
        for &(i, v) in set {
            kept[i] = v;
        }
        format!("2\t1\t0\t0\n{}{extra}", kept.join("\t"))
    }

    #[test]
    fn older_strings_get_ddnet_s_fallbacks() {
        // 96 fields (before the telegun, hook and input fields): a hook
        // that held (state 5, field 67) flies, the input is empty, the
        // tee counts as started.
        let old = cut(96, &[(67, "5")], "");
        let t = SavedTeam::parse(old.as_bytes(), Release::Ddnet16_4).unwrap();
        let m = &t.members[0];
        assert_eq!((m.hook_state, m.hooked_player, m.input), (4, -1, [0; 4]));
        assert!(m.tee_started && !m.live_frozen);
        assert!(!t.practice, "a team line of 4 numbers: no practice");
        // 20.1's five ninja fields: accepted by 20.1 only.
        let ninja = cut(110, &[], "\t1.000000\t0.000000\t7\t3\t900");
        let m = &SavedTeam::parse(ninja.as_bytes(), Release::Ddnet20_1)
            .unwrap()
            .members[0];
        assert_eq!(m.ninja, Some((Vec2::new(1.0, 0.0), 7, 3, 900)));
        // 16.4 stops reading after its 110 fields.
        assert!(SavedTeam::parse(ninja.as_bytes(), Release::Ddnet16_4).is_ok());
    }

    #[test]
    fn strings_ddnet_refuses_are_errors() {
        for (text, why) in [
            (cut(50, &[], ""), "50 fields"),
            ("2\t1\n".to_owned(), "2 numbers"),
            ("2\t65\t0\t0\t0".to_owned(), "65 members"),
            (format!("2\t1\t0\t0\t0\n{}", "b\t".repeat(600)), "too long"),
            (format!("{}\n", "1\t".repeat(40)), "too long"),
            // A member line missing: the empty line has no name.
            ("2\t2\t0\t0\t0\nb".to_owned(), "no name"),
        ] {
            for release in [Release::Ddnet16_4, Release::Ddnet20_1] {
                let e = SavedTeam::parse(text.as_bytes(), release);
                assert!(e.is_err(), "{why}: {e:?}");
            }
        }
        // 111 fields: 20.1 read one ninja field and failed the next; 16.4
        // stopped after its 110.
        let text = cut(110, &[], "\t1.0\tx");
        assert!(SavedTeam::parse(text.as_bytes(), Release::Ddnet20_1).is_err());
        assert!(SavedTeam::parse(text.as_bytes(), Release::Ddnet16_4).is_ok());
        // 20.1 checks the weapons.
        let text = cut(110, &[(30, "6")], "");
        assert!(SavedTeam::parse(text.as_bytes(), Release::Ddnet20_1).is_err());
    }

    #[test]
    fn a_team_s_switches_follow_its_members() {
        // The saved team with two switches: 1 off for good, 2 on with a
        // timed end 30 ticks ago.
        let head = SAVED.replacen("2\t2\t0\t0\t0", "2\t2\t2\t0\t0", 1);
        let text = format!("{head}\n0\t0\t25\n1\t30\t22");
        let team = SavedTeam::parse(text.as_bytes(), Release::Ddnet16_4).expect("reads");
        assert_eq!(team.highest_switch_number, 2);
        assert_eq!(team.switchers, [(0, 0, 25), (1, 30, 22)]);
        // A switch line short of its three numbers is refused.
        let text = format!("{head}\n0\t0\t25");
        assert!(SavedTeam::parse(text.as_bytes(), Release::Ddnet20_1).is_err());
    }

    quickcheck::quickcheck! {
        fn any_bytes_read_without_panicking(bytes: Vec<u8>) -> bool {
            let _ = SavedTeam::parse(&bytes, Release::Ddnet16_4);
            let _ = SavedTeam::parse(&bytes, Release::Ddnet20_1);
            true
        }
    }
}
